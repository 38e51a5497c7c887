// What a WebSocket route answers a plain GET (no Upgrade): 426 upgrade_required with `Upgrade: websocket`
// (RFC 9110 15.5.22), a problem+json as every refusal, rather than @fastify/websocket's empty 404, which told
// a client that the resource does not exist when it exists but only as a socket.
// No `Connection: upgrade` beside it: setting Connection ourselves makes Node keep open a connection whose
// request asked `Connection: close`.
import { problemResponseSchema } from "@floodgate/domain";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendProblem } from "../errors/problem-reply.ts";

/** The route schema's answer to a plain GET, for the document (and the serializer). */
export const upgradeRequiredResponse = { 426: problemResponseSchema };

/** The HTTP handler of a WebSocket route: the socket itself is its wsHandler. */
export function answerUpgradeRequired(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split("?")[0] ?? request.url;
  return sendProblem(request, reply, "upgrade_required", {
    detail: `${path} is a WebSocket: open it as ws:// or wss:// (a GET with Upgrade: websocket)`,
    headers: { Upgrade: "websocket" },
  });
}
