// Each route's schema as its OpenAPI operation: security from the route's `config.auth` (the one place auth-plugin
// reads too, so the document cannot disagree with it), the headers of `documented` (operation-docs.ts), problem
// answers as application/problem+json, and WebSockets as the GET that upgrades. The document only: nothing
// here changes what Fastify validates or serializes.
import { GUARDED_ROUTE_CLASSES, type RouteClass } from "@floodgate/domain";
import type { FastifySchema, RouteOptions } from "fastify";
import type { RouteAuth } from "../plugins/auth-plugin.ts";
import { COMPONENT_MARK, markComponents } from "./component-schemas.ts";
import {
  headersNamed,
  type ResponseHeaderName,
  requestHeaders,
  requiredIdempotencyKey,
} from "./documented-headers.ts";
import type { OperationDocs } from "./operation-docs.ts";
import { socketDescription } from "./socket-docs.ts";

/** Routes left out of the document: the demo store (its page and sign-in), not part of the API. */
export const isUndocumented = (url: string) => url === "/demo" || url.startsWith("/demo/");

type Security = { [scheme: string]: string[] }[];

const callerSecurity: Security = [{ serverKey: [] }, { customerToken: [] }];

const SECURITY: Record<RouteAuth, Security> = {
  caller: callerSecurity,
  admin: [{ adminKey: [] }],
  public: [],
  socket: [...callerSecurity, { socketAccessToken: [] }],
};

type ResponseSchemas = Record<string, unknown>;

const SUCCESS: Record<string, string> = {
  200: "OK.",
  201: "Created.",
  202: "Accepted: stored, and applied by a worker; its status is at Location.",
};

const isGuarded = (routeClass: RouteClass | undefined) =>
  routeClass !== undefined && (GUARDED_ROUTE_CLASSES as readonly string[]).includes(routeClass);

function problemAnswer(schema: unknown, description: string, headers: ResponseHeaderName[]) {
  return {
    description,
    ...(headers.length > 0 ? { headers: headersNamed(headers) } : {}),
    content: { "application/problem+json": { schema } },
  };
}

/** The Location header, its description naming where it points. */
function withLocation(headers: Record<string, object>, docs: OperationDocs): Record<string, object> {
  if (docs.location === undefined || headers.Location === undefined) return headers;
  const { template, description } =
    typeof docs.location === "string"
      ? { template: docs.location, description: "Where the created resource is read" }
      : docs.location;
  return { ...headers, Location: { ...headers.Location, description: `${description}: \`${template}\`.` } };
}

/** A problem+json body: the shared Problem schema, or one that extends it (OrderConflictProblem). */
const isProblem = (body: unknown) =>
  String((body as Record<string, unknown>)[COMPONENT_MARK] ?? "").endsWith("Problem");

function responses(schema: FastifySchema, docs: OperationDocs, auth: RouteAuth): ResponseSchemas {
  const declared = markComponents((schema.response ?? {}) as ResponseSchemas);
  const replayed: ResponseHeaderName[] = docs.idempotent ? ["Idempotent-Replayed"] : [];
  const out: ResponseSchemas = {};
  for (const [status, body] of Object.entries(declared)) {
    const said = docs.answers?.[Number(status)];
    if (/^[45]/.test(status) && isProblem(body)) {
      const generic = status === "4xx" || status === "5xx";
      out[status] = problemAnswer(
        body,
        said ??
          (generic ? `A problem (${status.toUpperCase()}): see its \`type\`.` : `A problem (${status}).`),
        // A 426 names the protocol to upgrade to (RFC 9110 requires it).
        [...(status === "426" ? (["Upgrade"] as const) : []), ...(status.startsWith("4") ? replayed : [])],
      );
      continue;
    }
    // Anything else is the body it declares, as JSON: a success, or an error that is not a problem (/readyz's
    // 503 is its readiness report, which load balancers and people read as they read its 200).
    const success = /^[23]/.test(status);
    const headers: ResponseHeaderName[] = success
      ? [
          ...(docs.location ? (["Location"] as const) : []),
          ...(isGuarded(docs.admission) ? (["RateLimit", "RateLimit-Policy"] as const) : []),
          ...replayed,
          ...(docs.successHeaders ?? []),
        ]
      : [];
    const described = {
      description: said ?? SUCCESS[status] ?? (success ? "Success." : `An answer (${status}).`),
      ...(body as object),
    };
    out[status] =
      headers.length === 0 ? described : { ...described, headers: withLocation(headersNamed(headers), docs) };
  }
  const problem = declared["4xx"] ?? declared["5xx"];
  if (problem === undefined) return out;
  if (auth === "caller" || auth === "admin") {
    out["401"] = problemAnswer(problem, "No credential this route accepts.", ["WWW-Authenticate"]);
  }
  if (docs.admission !== undefined) {
    out["429"] = problemAnswer(problem, "Over a rate limit of the route class; nothing was stored.", [
      "Retry-After",
      "RateLimit",
      "RateLimit-Policy",
    ]);
  }
  if (declared["5xx"] !== undefined) {
    out["503"] = problemAnswer(problem, "A store is unreachable, or the deployment is overloaded.", [
      "Retry-After",
    ]);
  }
  return out;
}

function socketOperation(schema: FastifySchema, docs: OperationDocs): FastifySchema {
  const socket = docs.socket!;
  return {
    ...schema,
    description: socketDescription(socket),
    querystring: {
      type: "object",
      properties: {
        access_token: {
          type: "string",
          description: "The bearer (server key or customer token), for browsers, which cannot set headers.",
        },
      },
    },
    response: {
      101: { description: "Switching Protocols: the socket is open.", type: "null" },
      // What the route answers over HTTP: a GET without the upgrade.
      ...responses(schema, docs, "socket"),
    },
    "x-websocket": markComponents(socket),
  } as FastifySchema;
}

export function transformOperation({
  schema,
  url,
  route,
}: {
  schema: FastifySchema | undefined;
  url: string;
  route: RouteOptions;
}): { schema: FastifySchema; url: string } {
  if (isUndocumented(url)) return { schema: { ...schema, hide: true }, url };
  const { documented: docs = {}, ...rest } = schema ?? {};
  const auth = route.config?.auth ?? "caller";
  // @fastify/websocket hides its routes from the document; this one describes them.
  if (docs.socket) {
    return { schema: { ...socketOperation(rest, docs), security: SECURITY.socket, hide: false }, url };
  }
  const keyRequired = docs.idempotent === "required";
  const headerParams = {
    ...(docs.idempotent
      ? { "Idempotency-Key": keyRequired ? requiredIdempotencyKey : requestHeaders["Idempotency-Key"] }
      : {}),
    ...(isGuarded(docs.admission) ? { "Admission-Token": requestHeaders["Admission-Token"] } : {}),
  };
  return {
    schema: {
      ...rest,
      ...(rest.body === undefined ? {} : { body: markComponents(rest.body) }),
      security: SECURITY[auth],
      ...(Object.keys(headerParams).length > 0
        ? {
            headers: {
              type: "object",
              properties: headerParams,
              ...(keyRequired ? { required: ["Idempotency-Key"] } : {}),
            },
          }
        : {}),
      response: responses(rest, docs, auth),
    },
    url,
  };
}
