// What a route's schema says for the OpenAPI document only: facts Fastify must not validate (a header schema
// would turn a bad Idempotency-Key into a generic validation_error) or cannot see (the Location an answer
// carries, the admission checks of the route's Lua call). Read and removed by operation-transform.ts.
import type { RouteClass } from "@floodgate/domain";
import type { ResponseHeaderName } from "./documented-headers.ts";
import type { SocketDocs } from "./socket-docs.ts";

export interface OperationDocs {
  /**
   * The Location every success answer carries, as a URI template ("/v1/payments/{id}"); with a description when
   * it is not the answer's own resource.
   */
  location?: string | { template: string; description: string };
  /** The route class whose rate limits apply (and, for a guarded class, whose waiting room). */
  admission?: RouteClass;
  /**
   * Takes Idempotency-Key: a retry gets the key's first answer, marked Idempotent-Replayed. "required": a
   * request without one is refused (refunds: a retried refund must not be a second one).
   */
  idempotent?: true | "required";
  /** Headers every success answer carries beyond those the other fields imply (Cache-Control). */
  successHeaders?: ResponseHeaderName[];
  /** What an answer means, by status, where the default wording ("OK.", "A problem (503).") says too little. */
  answers?: Record<number, string>;
  /** A WebSocket: what the socket carries, instead of HTTP answers. */
  socket?: SocketDocs;
}

declare module "fastify" {
  interface FastifySchema {
    /** Documentation only (openapi/operation-transform.ts); never validated. */
    documented?: OperationDocs;
  }
}
