// WebSockets for every socket route (waiting rooms, operation status): the upgrade, and the three ways a socket
// ends that are not the route's own: a refused upgrade, a broken client, a shutdown.
import websocket, { type WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { REQUEST_ID_HEADER, upgradeRequestId } from "../request-ids/request-id.ts";

/** A client that does not answer the shutdown's close frame is cut after this long. */
const CLOSE_GRACE_MS = 1000;

export const websocketPlugin = fp(async (app: FastifyInstance) => {
  const warned = new WeakSet<WebSocket>();
  await app.register(websocket, {
    // Every message a client sends is a few bytes (a ping); a larger one is refused (close 1009).
    options: { maxPayload: 1024 },
    // A malformed frame is the client's fault and ws already closes the socket with the code it earned (1002,
    // 1009): one warning per connection, no stack. Anything else thrown on the socket is ours: logged, and cut.
    errorHandler: (error, socket, request) => {
      const code = (error as Error & { code?: string }).code;
      if (typeof code === "string" && code.startsWith("WS_ERR_")) {
        if (warned.has(socket)) return;
        warned.add(socket);
        request.log.warn({ code, err: error.message, url: request.routeOptions.url }, "websocket: bad frame");
        return;
      }
      request.log.error({ err: error }, "websocket handler failed");
      socket.terminate();
    },
    // On shutdown every socket hears 1001 (going away), so clients reconnect to another intake.
    preClose(done) {
      const server = app.websocketServer;
      for (const client of server.clients) {
        client.close(1001, "server shutting down");
        setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
      }
      server.close();
      done();
    },
  });
  // The 101 is written by ws, not by the reply: the request id goes in through ws's own event.
  app.websocketServer.on("headers", (headers, raw) => {
    const id = upgradeRequestId(raw);
    if (id !== undefined) headers.push(`${REQUEST_ID_HEADER}: ${id}`);
  });
  // Callback style: it runs on every request, almost always returning at once.
  app.addHook("onRequest", (request, reply, done) => {
    closeUpgradeAfterAnswer(request, reply);
    done();
  });
});

/**
 * An upgrade answered over HTTP (the router refused its path, a 404, a schema error) owns a socket the HTTP
 * server has already let go of: nobody else would ever close it (each sat in CLOSE-WAIT, one fd). Closed once
 * the answer is flushed, destroyed since the peer may keep its half open. A route that upgrades hijacks the
 * reply and never finishes it. Also called by the router's refusals (app.ts), which run no hooks.
 */
export function closeUpgradeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.headers.upgrade === undefined) return;
  const socket = request.raw.socket;
  reply.raw.once("finish", () => {
    if (!socket.destroyed) socket.end(() => socket.destroy());
  });
}
