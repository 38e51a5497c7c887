// The headers the API reads and sends, as the OpenAPI document states them (RFC 9110, the IETF RateLimit
// draft, Stripe's Idempotent-Replayed). The code that sends them: idempotency-key.ts, admission-control.ts,
// problem-reply.ts, authenticator.ts.
import { IDEMPOTENCY_KEY_PATTERN } from "@floodgate/domain";

export const requestHeaders = {
  "Idempotency-Key": {
    type: "string",
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
    description:
      "1-255 visible ASCII characters, remembered per user for IDEMPOTENCY_TTL_SECONDS (24 h): a retry with the " +
      "same key and body gets the first answer again (refusals included) and creates nothing; with another body " +
      "it is a 422 idempotency_key_reused. A malformed key is a 400 invalid_idempotency_key.",
  },
  "Admission-Token": {
    type: "string",
    description:
      "The token a waiting room gave when it admitted this user (POST /v1/rooms/{roomId}/tickets or its " +
      "WebSocket). Needed only while a room guarding this route class queues; otherwise not checked.",
  },
} as const;

/** Idempotency-Key on a route that refuses a request without one. */
export const requiredIdempotencyKey = {
  ...requestHeaders["Idempotency-Key"],
  description:
    `Required here: a request without one is a 400 validation_error naming it, so that a retry is never a ` +
    `second operation. ${requestHeaders["Idempotency-Key"].description}`,
};

export const responseHeaders = {
  Location: { type: "string", format: "uri-reference", description: "Where the created resource is read." },
  RateLimit: {
    type: "string",
    description:
      'What is left of each limit of the route class, when it has one: `"payments-user";r=19;t=1` (IETF draft).',
  },
  "RateLimit-Policy": {
    type: "string",
    description:
      'The limits of the route class, when it has any: `"payments-user";q=20;w=2, "payments-ip";q=2000;w=2`.',
  },
  "Retry-After": { type: "integer", minimum: 1, description: "Seconds to wait before retrying." },
  "Idempotent-Replayed": {
    type: "string",
    enum: ["true"],
    description:
      "Present when this answer is the Idempotency-Key's recorded first answer, not a new decision.",
  },
  "Cache-Control": {
    type: "string",
    description:
      "How long caches (a shop's server, a CDN) may keep this answer: `public, max-age=<seconds>`.",
  },
  "WWW-Authenticate": { type: "string", description: "The Bearer challenge (RFC 6750)." },
  Upgrade: {
    type: "string",
    enum: ["websocket"],
    description: "The protocol this route is served over (RFC 9110): open it as a WebSocket.",
  },
} as const;

export type ResponseHeaderName = keyof typeof responseHeaders;

export const headersNamed = (names: ResponseHeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, responseHeaders[name]]));
