// A request's id: the caller's `x-request-id` when it is one we can log and echo safely, else a fresh UUID
// (unique across every intake process, where Fastify's default counter repeats per process). Fastify's
// genReqId calls this once per request: request.id, the `reqId` of every log line, the echoed header and
// problem bodies' `requestId` are all this value.
import type { IncomingMessage } from "node:http";
import { uuidV4 } from "./uuid-v4.ts";

export const REQUEST_ID_HEADER = "x-request-id";

/** Printable ASCII, 1 to 128 characters: a log field and a header value that cannot be used to inject. */
const ACCEPTED = /^[\x20-\x7e]{1,128}$/;

/** Ids of WebSocket upgrades, for the 101 answer's header, which ws writes without Fastify's reply. */
const upgradeIds = new WeakMap<IncomingMessage, string>();

export function requestIdFor(raw: IncomingMessage): string {
  const offered = raw.headers[REQUEST_ID_HEADER];
  const id = typeof offered === "string" && ACCEPTED.test(offered) ? offered : uuidV4();
  if (raw.headers.upgrade !== undefined) upgradeIds.set(raw, id);
  return id;
}

export function upgradeRequestId(raw: IncomingMessage): string | undefined {
  return upgradeIds.get(raw);
}
