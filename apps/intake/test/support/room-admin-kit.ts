// What the waiting-room tests driving rooms through the HTTP API share: an operator's PUT (its answer held
// against the OpenAPI document), the room's definition as GET answers it, and the leader's ticks seen from the
// room's state (this process leads in these tests: its ticks are about 100 ms apart).
import type { FastifyInstance } from "fastify";
import { adminHeaders } from "./coupon-test-kit.ts";
import { documentedInject, waitUntil } from "./intake-test-kit.ts";

export const putRoom = (app: FastifyInstance, roomId: string, body: Record<string, unknown>) =>
  documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: body,
  });

export const getRoom = (app: FastifyInstance, roomId: string) =>
  documentedInject(app, { method: "GET", url: `/v1/rooms/${roomId}`, headers: adminHeaders() });

const lastTickAt = async (app: FastifyInstance, roomId: string) =>
  Number(await app.redis.hget(app.admission.keys.room(roomId).state, "lastTickAt"));

/** Resolves once the leader has ticked the room for a while after `since` (about five ticks). */
export const ticksAfter = (app: FastifyInstance, roomId: string, since = Date.now()) =>
  waitUntil(
    () => lastTickAt(app, roomId),
    (at) => at > since + 500,
    `five more ticks of ${roomId}`,
  );

/** The room's waiting tickets, read at one instant (the queue, a sorted set in the room's slot). */
export const waitingTickets = async (app: FastifyInstance, roomId: string): Promise<Set<string>> =>
  new Set(await app.redis.zrange(app.admission.keys.room(roomId).queue, 0, -1));
