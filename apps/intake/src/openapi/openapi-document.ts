// The parts of the OpenAPI document no route states: what the API is, who may call it (security schemes), its
// tags, the events a webhook endpoint receives, and the named schemas every operation refers to.
import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";
import { PING_EVENT_TYPE, pingEventSchema, WEBHOOK_EVENT_SCHEMAS } from "@floodgate/domain";
import { COMPONENT_MARK, COMPONENT_SCHEMAS, markComponents } from "./component-schemas.ts";
import { FLOODGATE_VERSION } from "./floodgate-version.ts";

export const OPENAPI_BASE: FastifyDynamicSwaggerOptions["openapi"] = {
  openapi: "3.1.0",
  info: {
    title: "Floodgate",
    version: FLOODGATE_VERSION,
    description:
      "Payments, coupons, limited-stock orders and waiting rooms for traffic spikes: every write is accepted " +
      "(202) into a queue and applied by workers; read its status at its Location or over " +
      "`WS /v1/operations/{id}/ws`. Errors are RFC 9457 problem+json: each `type` resolves to a page at " +
      "`/problems/{code}` that explains the code.",
    license: { name: "MIT", identifier: "MIT" },
  },
  // Relative: the API is the intake that serves this document, wherever it is deployed.
  servers: [{ url: "/", description: "The intake serving this document" }],
  components: {
    securitySchemes: {
      serverKey: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "fg_sk_…",
        description:
          "The shop's server key (POST /v1/api-keys): acts for any user it names (`userId` in the body or path).",
      },
      customerToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          "A short-lived customer token (POST /v1/customer-sessions): acts only for its own user; a `userId` " +
          "naming someone else is a 403.",
      },
      adminKey: {
        type: "http",
        scheme: "bearer",
        description:
          "ADMIN_API_KEY: configuration only (rooms, products, coupons, rate limits, server keys).",
      },
      socketAccessToken: {
        type: "apiKey",
        in: "query",
        name: "access_token",
        description:
          "A WebSocket's bearer (server key or customer token), for browsers that cannot set headers.",
      },
    },
  },
  tags: [
    { name: "Payments" },
    { name: "Wallets" },
    { name: "Coupons" },
    { name: "Products" },
    { name: "Orders" },
    { name: "Refunds" },
    { name: "Operations", description: "Live status of any accepted operation." },
    { name: "Waiting rooms" },
    { name: "Rate limits" },
    { name: "Server keys" },
    { name: "Customer sessions" },
    {
      name: "Webhooks",
      description:
        "Endpoints the shop's events are POSTed to, signed; the `webhooks` section gives each body.",
    },
    {
      name: "Events",
      description: "The same events as a feed, to catch up from a cursor (kept EVENT_RETENTION_DAYS).",
    },
    { name: "Health" },
    { name: "Problems", description: "What each problem `type` means." },
  ],
};

const DESCRIPTIONS: Record<string, string> = {
  Problem:
    "RFC 9457 problem details. `type` is a relative reference, `/problems/{code}` with `-` for `_`, resolved " +
    "against the request's URI: a page that explains the code (GET it with Accept: text/html, or as JSON). " +
    "`errors[]` names every field at fault; `retryable` says whether the same request can succeed later.",
  Payment: "A payment or a deposit, as GET /v1/payments/{id} and /v1/deposits/{id} answer it.",
  Readiness: "What /readyz found: the same report whether ready (200) or not (503).",
};

/** How each delivery is signed, per the endpoint's signatureScheme. */
const SIGNED =
  "Signed per the endpoint's `signatureScheme`. `standard-webhooks` (new endpoints; " +
  "https://www.standardwebhooks.com): `webhook-id` (the event id), `webhook-timestamp` (unix seconds) and " +
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed by the ' +
  "bytes the `whsec_<base64>` secret encodes. `floodgate-signature` (endpoints made before, until switched): " +
  '`Floodgate-Event-Id` and `Floodgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, ' +
  "keyed by the whole secret string. For 24 h after a rotation each carries one signature per secret.";

/**
 * What an endpoint (POST /v1/webhook-endpoints) receives: one entry per event type, its body the event's
 * schema, signed as the shop's server SDK (@floodgate/node) checks; and the ping that POST
 * /v1/webhook-endpoints/{id}/test sends.
 */
function webhooks(): Record<string, unknown> {
  const schemas: [string, unknown][] = [
    ...Object.entries(WEBHOOK_EVENT_SCHEMAS),
    [PING_EVENT_TYPE, pingEventSchema],
  ];
  return Object.fromEntries(
    schemas.map(([type, schema]) => [
      type,
      {
        post: {
          summary:
            type === PING_EVENT_TYPE
              ? "The ping POST /v1/webhook-endpoints/{id}/test sends"
              : `The ${type} event`,
          description: SIGNED,
          requestBody: {
            required: true,
            content: { "application/json": { schema: markComponents(schema) } },
          },
          responses: { "2XX": { description: "Received: any 2xx ends the deliveries of this event." } },
        },
      },
    ]),
  );
}

/**
 * Every schema node marked by markComponents becomes a reference to its entry of components.schemas, so the
 * reference page shows each body once, by name, instead of in every operation that uses it.
 */
export function hoistComponents(document: Record<string, unknown>): Record<string, unknown> {
  const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
  components.schemas ??= {};
  const schemas = components.schemas;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== "object") return node;
    const record = node as Record<string, unknown>;
    const fields = Object.fromEntries(
      Object.entries(record)
        .filter(([key]) => key !== COMPONENT_MARK)
        .map(([key, value]) => [key, visit(value)]),
    );
    const name = record[COMPONENT_MARK];
    if (typeof name !== "string") return fields;
    // The node's own description may be its answer's ("OK."), which the route's response merged into it: the
    // component says what the schema is, from DESCRIPTIONS or the schema object itself.
    const { description: _answer, ...schema } = fields;
    const description =
      DESCRIPTIONS[name] ?? (COMPONENT_SCHEMAS[name] as { description?: string }).description;
    schemas[name] ??= description === undefined ? schema : { description, ...schema };
    return { $ref: `#/components/schemas/${name}` };
  };
  const paths = visit(document.paths);
  return { ...document, paths, webhooks: visit(webhooks()), components };
}
