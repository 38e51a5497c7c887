// A room's controls through the HTTP API, with this process as the admission leader: `endsAt` (a time past
// closes the room at once: joins refused 410 room_closed, waiting sockets told `closed`, polls read `closed`,
// nobody admitted; a later endsAt, or none, reopens it), `method: "reject"` (every join refused 503 with the
// room's message, nobody admitted, until switched back), `joins: "server"` (a shopper's own join refused 403),
// `maxActiveSessions` (no more live sessions than that), and bad values refused 400 naming the field with
// nothing written.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders, isoIn } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { getRoom, putRoom, ticksAfter } from "./support/room-admin-kit.ts";
import { openTicketSocket, type TicketSocket } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-controls", {
    env: { ADMIN_API_KEY: ADMIN_KEY, RATE_LIMITS: "room-joins.ip=off" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const baseUrl = () => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
// One admission a second at most: the tickets at the back of a queue of eight wait through each test's steps.
const slowRoom = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: 1,
  sessionSeconds: 600,
  ...changes,
});
const join = (roomId: string, userId: string, headers: Record<string, string> = {}) =>
  post(app, `/v1/rooms/${roomId}/tickets`, { userId }, headers);
const statusOf = async (roomId: string, ticketId: string) =>
  (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json().status as string;
const hasTicket = async (roomId: string, userId: string) =>
  (await app.redis.hexists(app.admission.keys.room(roomId).users, userId)) === 1;

async function joinMany(roomId: string, count: number): Promise<string[]> {
  const tickets: string[] = [];
  for (let i = 0; i < count; i++) {
    const joined = await join(roomId, `${roomId}-shopper-${i}`);
    expect(joined.statusCode, joined.body).toBe(201);
    tickets.push(joined.json().ticketId);
  }
  return tickets;
}

describe("endsAt", () => {
  it("a time past closes the room at once; a later endsAt reopens it, and one that comes closes it again", async () => {
    const defined = await putRoom(app, "closing", slowRoom({ endsAt: isoIn(3_600_000) }));
    expect(defined.statusCode, defined.body).toBe(201);
    expect(defined.json()).toMatchObject({ closed: false, method: "fifo", joins: "anyone", message: null });
    const tickets = await joinMany("closing", 8);
    const back = tickets.slice(5);
    const sockets: TicketSocket[] = [];
    try {
      for (const ticketId of back)
        sockets.push(await openTicketSocket(baseUrl(), "closing", ticketId, env.serverKey));
      for (const socket of sockets) await socket.next((m) => m.type === "position", "a position");

      const closed = await putRoom(app, "closing", slowRoom({ endsAt: isoIn(-60_000) }));
      expect(closed.statusCode, closed.body).toBe(200);
      expect(closed.json().closed).toBe(true);
      for (const socket of sockets) await socket.next((m) => m.type === "closed", "closed");
      for (const ticketId of back) expect(await statusOf("closing", ticketId)).toBe("closed");
      expectProblem(await join("closing", "late"), 410, "room_closed", "roomId");
      // Not even the user's own ticket again: a closed room takes no join.
      expectProblem(await join("closing", "closing-shopper-7"), 410, "room_closed", "roomId");
      expect(await hasTicket("closing", "late")).toBe(false);
      // Nobody admitted while closed: every ticket that read closed still does after several ticks.
      const closedNow = [];
      for (const ticketId of tickets)
        if ((await statusOf("closing", ticketId)) === "closed") closedNow.push(ticketId);
      await ticksAfter(app, "closing");
      for (const ticketId of closedNow) expect(await statusOf("closing", ticketId)).toBe("closed");

      // A later endsAt reopens: places kept, positions follow again, joins are taken.
      const reopened = await putRoom(app, "closing", slowRoom({ endsAt: isoIn(3_600_000) }));
      expect(reopened.json().closed).toBe(false);
      for (const socket of sockets) await socket.next((m) => m.type === "position", "a position again");
      expect(await statusOf("closing", back[2]!)).toBe("waiting");
      expect((await join("closing", "late")).statusCode).toBe(201);

      // An endsAt that comes while shoppers wait: the tick that finds it passed tells every waiting socket.
      await putRoom(app, "closing", slowRoom({ endsAt: isoIn(300) }));
      for (const socket of sockets) await socket.next((m) => m.type === "closed", "closed when endsAt came");
      expect(await statusOf("closing", back[2]!)).toBe("closed");

      // No endsAt at all reopens too.
      const cleared = await putRoom(app, "closing", slowRoom());
      expect(cleared.json()).toMatchObject({ endsAt: null, closed: false });
      await sockets[2]!.next((m) => m.type === "position", "a position after endsAt was cleared");
      expect(await statusOf("closing", back[2]!)).toBe("waiting");
    } finally {
      for (const socket of sockets) socket.close();
    }
  });

  it("refuses an endsAt that is no date or not after startsAt, naming it, and writes nothing", async () => {
    const refusals = [
      { endsAt: "2026-02-30T10:00:00Z" },
      { endsAt: "tomorrow" },
      { startsAt: isoIn(7_200_000), endsAt: isoIn(3_600_000) },
    ];
    for (const changes of refusals) {
      expectProblem(
        await putRoom(app, "never-defined", slowRoom(changes)),
        400,
        "validation_error",
        "endsAt",
      );
    }
    expect((await getRoom(app, "never-defined")).statusCode).toBe(404);
  });
});

describe("method", () => {
  it("reject refuses every join with the room's message and admits nobody, until the room is switched back", async () => {
    expect((await putRoom(app, "incident", slowRoom())).statusCode).toBe(201);
    const tickets = await joinMany("incident", 3);
    const message = "We are fixing a problem with the sale: back at 18:00";
    const rejecting = await putRoom(app, "incident", slowRoom({ method: "reject", message }));
    expect(rejecting.json()).toMatchObject({ method: "reject", message });
    const refused = expectProblem(await join("incident", "newcomer"), 503, "room_rejecting", "roomId");
    expect(refused.detail).toBe(message);
    expect(await hasTicket("incident", "newcomer")).toBe(false);
    const stillWaiting = [];
    for (const ticketId of tickets)
      if ((await statusOf("incident", ticketId)) === "waiting") stillWaiting.push(ticketId);
    expect(stillWaiting.length).toBeGreaterThan(0);
    await ticksAfter(app, "incident");
    await ticksAfter(app, "incident");
    for (const ticketId of stillWaiting) expect(await statusOf("incident", ticketId)).toBe("waiting");

    await putRoom(app, "incident", slowRoom({ admitPerSecond: 50 }));
    for (const ticketId of stillWaiting) {
      await waitUntil(
        () => statusOf("incident", ticketId),
        (status) => status === "admitted",
        `${ticketId} admitted once the room is back to fifo`,
      );
    }
    expect((await join("incident", "newcomer")).statusCode).toBe(201);
  });

  it("refuses an unknown method or joins, an unprintable message or a cap of 0, naming it, and writes nothing", async () => {
    for (const [field, value] of [
      ["method", "lottery"],
      ["joins", "staff"],
      ["message", "line\nbreak"],
      ["message", "x".repeat(501)],
      ["maxActiveSessions", 0],
    ] as const) {
      expectProblem(
        await putRoom(app, "never-defined", slowRoom({ [field]: value })),
        400,
        "validation_error",
        field,
      );
    }
    expect((await getRoom(app, "never-defined")).statusCode).toBe(404);
  });
});

describe("joins", () => {
  it("\"server\" refuses a shopper's own join and takes the shop's server key", async () => {
    const defined = await putRoom(app, "members", slowRoom({ mode: "off", joins: "server" }));
    expect(defined.json().joins).toBe("server");
    const shopper = (await app.auth.customerTokens.mint("alice", 900)).token;
    const refused = await join("members", "alice", { authorization: `Bearer ${shopper}` });
    expectProblem(refused, 403, "room_joins_server_only", "Authorization");
    expect(await hasTicket("members", "alice")).toBe(false);
    const joined = await join("members", "alice");
    expect(joined.statusCode, joined.body).toBe(201);
    expect(joined.json().status).toBe("admitted");

    // Back to anyone: the shopper's token joins again.
    await putRoom(app, "members", slowRoom({ mode: "off" }));
    const own = await join("members", "bob", {
      authorization: `Bearer ${(await app.auth.customerTokens.mint("bob", 900)).token}`,
    });
    expect(own.statusCode, own.body).toBe(201);
  });
});

describe("maxActiveSessions", () => {
  it("admits no more than that many live sessions; one that ends lets the next in", async () => {
    const defined = await putRoom(app, "capped", slowRoom({ admitPerSecond: 50, maxActiveSessions: 2 }));
    expect(defined.json().maxActiveSessions).toBe(2);
    const tickets = await joinMany("capped", 4);
    const admittedOnes = async () => {
      const statuses = await Promise.all(tickets.map((ticketId) => statusOf("capped", ticketId)));
      return tickets.filter((_, i) => statuses[i] === "admitted");
    };
    const firstTwo = await waitUntil(admittedOnes, (ids) => ids.length === 2, "two admitted");
    await ticksAfter(app, "capped");
    expect(await admittedOnes()).toEqual(firstTwo);
    expect(await statusOf("capped", tickets[2]!)).toBe("waiting");

    // A session that ends (revoked here; expiry does the same) makes room for exactly one more.
    const revoked = await documentedInject(app, {
      method: "DELETE",
      url: `/v1/rooms/capped/tokens/${firstTwo[0]}`,
      headers: adminHeaders(),
    });
    expect(revoked.statusCode, revoked.body).toBe(204);
    await waitUntil(
      () => statusOf("capped", tickets[2]!),
      (status) => status === "admitted",
      "the next in line admitted",
    );
    await ticksAfter(app, "capped");
    expect(await statusOf("capped", tickets[3]!)).toBe("waiting");

    // No cap: the rest go at the room's rate.
    await putRoom(app, "capped", slowRoom({ admitPerSecond: 50 }));
    await waitUntil(
      () => statusOf("capped", tickets[3]!),
      (status) => status === "admitted",
      "admitted once the cap is lifted",
    );
  });
});
