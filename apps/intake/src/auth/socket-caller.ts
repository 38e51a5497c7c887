// A WebSocket's caller, verified before it is served: refused on the socket itself (problem+json, then close
// 4401 or 4403), which a browser can read, where an HTTP 401 on the upgrade it could not.
import type { WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { refusalMessage, socketRefusal } from "../operations/socket-problem.ts";
import { adminNotAllowed, type Caller } from "./caller.ts";

/** The verified caller, or null once the socket has been refused and closed. */
export async function authenticateSocket(
  app: FastifyInstance,
  socket: WebSocket,
  request: FastifyRequest,
): Promise<Caller | null> {
  try {
    const caller = await app.auth.socketCaller(request);
    if (caller.kind === "admin") throw adminNotAllowed();
    return caller;
  } catch (error) {
    const refusal = socketRefusal(error, request.url.split("?")[0] ?? request.url, request.id);
    if (refusal === null) {
      socket.close(1011, "try again");
    } else {
      if (socket.readyState === socket.OPEN) socket.send(refusalMessage(refusal));
      socket.close(refusal.closeCode, String(refusal.problem.code ?? "refused"));
    }
    return null;
  }
}
