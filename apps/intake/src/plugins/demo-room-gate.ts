// The demo store's product page behind its room, through @floodgate/node's gate exactly as a shop's server runs
// it: /demo/drop?room=&product=&shopper= is the store page, gated while the link's room queues (the same test
// the intake's own guard makes, from this process's room directory). Without an admission the browser goes to
// /demo/queue.html (the room page: it queues on load with the SDK's joinRoom), which, once admitted, sends it to
// the gate's route for that room, /demo/rooms/:roomId/admit?token=&return=: the gate's cookie is set and the
// store page opens. The plain /demo/ page is not gated (it queues at Buy now, as before).
// The gate reads the JWKS from this intake's own listening address, never from the request's Host header (which
// would let a request name the keys it is verified with). @floodgate/node is loaded on the first gated request:
// an intake whose packages are not built still serves the API.
import type { AddressInfo } from "node:net";
import type { FastifyOnRequestHook } from "@floodgate/node";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

export const DEMO_DROP_PATH = "/demo/drop";
const ADMIT_PATH = /^\/demo\/rooms\/([\w-]+)\/admit$/;

/** An onRequest hook for the demo's routes. */
export function demoRoomGate(app: FastifyInstance) {
  const gates = new Map<string, FastifyOnRequestHook>();

  const gateOf = async (roomId: string): Promise<FastifyOnRequestHook> => {
    const known = gates.get(roomId);
    if (known) return known;
    const { admissionGate } = await import("@floodgate/node").catch(() => {
      throw new ProblemError("not_found", {
        detail: "@floodgate/node is not built: run pnpm exec turbo run build (./floodgate start does)",
      });
    });
    const bound = app.server.address() as AddressInfo | null;
    if (!bound) throw new ProblemError("not_found", { detail: "the demo's gate needs a listening intake" });
    const { address, family, port } = bound;
    const host = address === "0.0.0.0" || address === "::" ? "127.0.0.1" : address;
    const origin = `http://${family === "IPv6" && host !== "127.0.0.1" ? `[${host}]` : host}:${port}`;
    const gate = admissionGate({
      jwksUrl: `${origin}/.well-known/jwks.json`,
      roomId,
      roomUrl: `${origin}/demo/queue.html`,
      admitPath: `/demo/rooms/${roomId}/admit`,
      // The demo listens on plain http on loopback (DEMO_LOGIN is refused elsewhere).
      secureCookie: false,
      protect: ({ path }) => path === DEMO_DROP_PATH,
    }).fastify();
    gates.set(roomId, gate);
    return gate;
  };

  return async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, "http://demo");
    let roomId: string | undefined;
    if (url.pathname === DEMO_DROP_PATH) {
      roomId = url.searchParams.get("room") ?? undefined;
      if (!roomId || !app.admission.directory.room(roomId)?.stats.queueing) return;
    } else {
      roomId = ADMIT_PATH.exec(url.pathname)?.[1];
      if (!roomId) return;
    }
    return (await gateOf(roomId))(request, reply);
  };
}
