// Live positions over WebSockets with two intake instances on one Redis: whichever process holds a socket
// pushes what the admission leader (the other one, here) decided, and a reconnect, to either, picks up the
// ticket where it is. An open socket is a heartbeat; a silent ticket loses its place.
import { revokeTicket } from "@floodgate/redis-scripts";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, get, metricValue, post, waitUntil } from "./support/intake-test-kit.ts";
import {
  type ContractDocument,
  expectDocumentedMessage,
  servedDocument,
} from "./support/openapi-contract.ts";
import { openTicketSocket, type TicketMessage } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let apps: FastifyInstance[] = [];
let leader: FastifyInstance;
let follower: FastifyInstance;
let document: ContractDocument;
const baseUrl = (app: FastifyInstance) => {
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
};

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-sockets", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  apps = [await buildApp(env.config, { logger: false }), await buildApp(env.config, { logger: false })];
  await Promise.all(apps.map((app) => app.listen({ port: 0, host: "127.0.0.1" })));
  await waitUntil(
    async () => apps.filter((app) => app.admission.leader.leading).length,
    (count) => count === 1,
    "one of the two instances to hold the admission lease",
  );
  leader = apps.find((app) => app.admission.leader.leading)!;
  follower = apps.find((app) => app !== leader)!;
  document = await servedDocument(follower);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await env?.cleanup();
});

const putRoom = (roomId: string, body: Record<string, unknown>) =>
  documentedInject(leader, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: { mode: "on", admitPerSecond: 2, sessionSeconds: 60, guards: [], ...body },
  });
const join = async (app: FastifyInstance, roomId: string, userId: string) => {
  const response = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(response.statusCode).toBe(201);
  return response.json().ticketId as string;
};

describe("a waiting-room WebSocket", () => {
  it("on one instance gets its position as it changes and the admission the other instance made", async () => {
    // Nearly shut while the crowd joins and the watcher's socket opens, however slow this machine is.
    expect((await putRoom("live", { admitPerSecond: 1, guards: ["payments"] })).statusCode).toBe(201);
    const ahead = [];
    for (let i = 0; i < 20; i++) ahead.push(await join(follower, "live", `ahead-${i}`));
    const ticketId = await join(follower, "live", "watcher");
    const socket = await openTicketSocket(baseUrl(follower), "live", ticketId, env.serverKey);
    try {
      const first = await socket.next((m) => m.type === "position", "the first position");
      expect(first.position).toBeGreaterThanOrEqual(1);
      expect(first.position).toBeLessThanOrEqual(21);
      expect(first.etaSeconds).toBeGreaterThanOrEqual(0);
      // Then the line moves: several places pushed, then the admission.
      expect((await putRoom("live", { admitPerSecond: 10, guards: ["payments"] })).statusCode).toBe(200);
      const admitted = await socket.next((m) => m.type === "admitted", "the admission", 15_000);
      const positions = socket.messages.filter((m) => m.type === "position").map((m) => m.position!);
      // Each push says something new, and a place only moves forward.
      for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeLessThan(positions[i - 1]!);
      expect(Date.parse(admitted.expiresAt!)).toBeGreaterThan(Date.now());
      // The token the follower signed opens the leader's guarded route: one key, one deployment.
      const paid = await post(
        leader,
        "/v1/payments",
        { userId: "watcher", amount: 1 },
        { "admission-token": admitted.admissionToken! },
      );
      expect(paid.statusCode).toBe(202);
      const claims = leader.admission.tokens.verify(admitted.admissionToken!);
      expect(claims).toMatchObject({ ok: true, claims: { roomId: "live", ticketId, userId: "watcher" } });
    } finally {
      socket.close();
    }
  });

  it("picks the ticket up where it is after a reconnect, on either instance", async () => {
    expect(
      (await putRoom("reconnect", { startsAt: new Date(Date.now() + 60_000).toISOString() })).statusCode,
    ).toBe(201);
    const ticketId = await join(leader, "reconnect", "reconnector");
    const first = await openTicketSocket(baseUrl(leader), "reconnect", ticketId, env.serverKey);
    expect(await first.next((m) => m.type === "position", "a position")).toMatchObject({ position: 1 });
    first.close();
    await first.closed;
    await join(leader, "reconnect", "second-in-pre-queue");
    const again = await openTicketSocket(baseUrl(follower), "reconnect", ticketId, env.serverKey);
    try {
      // Pre-queue: the place is drawn at the start; until then the position is the pre-queue's size.
      expect(await again.next((m) => m.type === "position", "a position")).toMatchObject({ position: 2 });
    } finally {
      again.close();
    }
  });

  it("refuses a ticket the room does not have as documented, with the GET route's problem, and closes 4404", async () => {
    await putRoom("strict", {});
    const ticketId = "tkt_0000000000AAAAAAAAAAAAAAAA";
    const socket = await openTicketSocket(baseUrl(follower), "strict", ticketId, env.serverKey);
    const error = await socket.next((m: TicketMessage) => m.type === "error", "the error");
    // The documented refusal, {type: "error", code, problem}, as the operation socket sends it.
    expect(error).toEqual({ type: "error", code: "not_found", problem: expect.any(Object) });
    expectDocumentedMessage(document, "watchTicket", error);
    expect((await socket.closed).code).toBe(4404);
    const answered = await get(follower, `/v1/rooms/strict/tickets/${ticketId}`);
    expect(answered.statusCode).toBe(404);
    const { problem } = error as unknown as { problem: Record<string, unknown> };
    expect(problem.requestId).toEqual(expect.any(String));
    // The same problem but for the URL it names (the socket's, without its access token) and its request id.
    expect(problem.instance).toBe(`/v1/rooms/strict/tickets/${ticketId}/ws`);
    expect({ ...problem, instance: "", requestId: "" }).toEqual({
      ...answered.json(),
      instance: "",
      requestId: "",
    });
  });

  it("keeps its ticket's place while open, while a silent ticket is abandoned and told so", async () => {
    // The start is far off: nobody is admitted, so only abandonment can take a ticket out.
    // 3 s: an open socket's heartbeat goes every second, so even a busy machine keeps its place.
    await putRoom("heartbeat", { abandonSeconds: 3, startsAt: new Date(Date.now() + 120_000).toISOString() });
    const kept = await join(follower, "heartbeat", "keeps-socket-open");
    const silent = await join(leader, "heartbeat", "says-nothing");
    const leaving = await join(leader, "heartbeat", "leaves-after-a-second");
    const open = await openTicketSocket(baseUrl(follower), "heartbeat", kept, env.serverKey);
    const brief = await openTicketSocket(baseUrl(leader), "heartbeat", leaving, env.serverKey);
    brief.close();
    try {
      const ticketStatus = async (ticketId: string) =>
        (await get(follower, `/v1/rooms/heartbeat/tickets/${ticketId}`)).json().status as string;
      // Reading the silent ticket would be a heartbeat: the room's numbers tell instead.
      await waitUntil(
        async () =>
          (
            await documentedInject(leader, {
              method: "GET",
              url: "/v1/rooms/heartbeat",
              headers: adminHeaders(),
            })
          ).json(),
        (room) => room.abandoned === 2,
        "the two silent tickets to be abandoned",
        300,
      );
      expect(await ticketStatus(silent)).toBe("abandoned");
      expect(await ticketStatus(leaving)).toBe("abandoned");
      expect(await ticketStatus(kept)).toBe("waiting");
      const text = (await get(follower, "/metrics")).body;
      expect(metricValue(text, "floodgate_room_websockets")).toBe(1);
      expect(metricValue(text, "floodgate_room_pushes_total", { type: "position" })).toBeGreaterThanOrEqual(
        1,
      );
    } finally {
      open.close();
    }
  });

  it("is told when its admission is revoked, and closed", async () => {
    await putRoom("revocable", { mode: "off" });
    const ticketId = await join(leader, "revocable", "to-be-revoked");
    const socket = await openTicketSocket(baseUrl(follower), "revocable", ticketId, env.serverKey);
    await socket.next((m) => m.type === "admitted", "the admission");
    const revoked = await documentedInject(leader, {
      method: "DELETE",
      url: `/v1/rooms/revocable/tokens/${ticketId}`,
      headers: adminHeaders(),
    });
    expect(revoked.statusCode).toBe(204);
    expect(await socket.next((m) => m.type === "expired", "the revocation")).toMatchObject({
      reason: "revoked",
    });
    expect((await socket.closed).code).toBe(1000);
  });

  it("in the pre-queue learns its ticket ended even when the event never reached its instance", async () => {
    // The race this replays: a revoke published while the socket was still attaching, before its watcher
    // existed. Publishing to a channel no intake hears makes "missed" certain instead of a matter of timing.
    const startsAt = new Date(Date.now() + 3_600_000).toISOString();
    expect((await putRoom("missed", { startsAt })).statusCode).toBe(201);
    const ticketId = await join(leader, "missed", "missed-event");
    const socket = await openTicketSocket(baseUrl(follower), "missed", ticketId, env.serverKey);
    await socket.next((m) => m.type === "position", "the pre-queue position");
    const room = follower.admission.keys.room("missed");
    const revoked = await revokeTicket.run(follower.admission.redis, {
      ticketsKey: room.tickets,
      queueKey: room.queue,
      earlyKey: room.early,
      seenKey: room.seen,
      sessionsKey: room.sessions,
      endedKey: room.ended,
      unreservedKey: room.unreserved,
      ticketId,
      eventChannel: "a-channel-nobody-hears",
      roomId: "missed",
    });
    expect(revoked?.before).toBe("early");
    expect(await socket.next((m) => m.type === "expired", "the ended ticket", 10_000)).toMatchObject({
      reason: "revoked",
    });
    expect((await socket.closed).code).toBe(1000);
  });
});
