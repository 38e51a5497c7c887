// What every call of one checkout instance shares: the API, how it listens, and the admissions it holds.
import type { ApiEndpoint } from "./api-request.ts";
import type { WebSocketConstructor } from "./json-socket.ts";

export interface CheckoutContext extends ApiEndpoint {
  /** undefined: no WebSocket here (or the page said null), so every wait polls. */
  WebSocket: WebSocketConstructor | undefined;
  pollIntervalMs: number;
  /** Admission tokens by `${roomId} ${userId}` (userId "" for the token's own user): a token belongs to one
   * user in one room. */
  tokens: Map<string, string>;
  /** The room each guarded route class was last seen guarded by, so its next call carries the token at once. */
  guards: Map<string, string>;
}
