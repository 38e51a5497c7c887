// Waiting rooms against the real Redis: one place per user, FIFO by sequence, a pre-queue shuffled once,
// abandoned places skipped without using capacity, revocation, and a tick fenced by the leader's epoch.
// Ticks are run by hand (the leader's loop is tested through the intake).

import { verifyShuffleProof } from "@floodgate/node";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  endOrderSessions,
  joinRoom,
  markReserved,
  readRoomStats,
  readShuffleProof,
  readTicket,
  revokeTicket,
  type TicketState,
} from "../src/index.ts";
import { LEADER, RoomTestKit, sleep } from "./support/room-test-kit.ts";

let env: TestEnvironment;
let kit: RoomTestKit;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room", { shards: 1 });
  kit = await RoomTestKit.start(env.config);
  await kit.lead();
});

afterAll(async () => {
  await kit?.stop();
  await env?.cleanup();
});

async function join(roomId: string, userId: string): Promise<TicketState> {
  const outcome = await joinRoom(kit.redis, kit.keys, { roomId, userId });
  if (outcome.result !== "joined" && outcome.result !== "existing")
    throw new Error(`join: ${outcome.result}`);
  return outcome.ticket;
}

/** Ticks until `done`, pausing between ticks so the allowance grows (a tick admits by elapsed time). */
async function tickUntil(roomId: string, done: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    await kit.tick(roomId);
    await sleep(30);
    if (await done()) return;
  }
  throw new Error(`gave up ticking ${roomId} until ${what}`);
}

const inversions = (order: string[], expected: string[]) => {
  const rank = new Map(expected.map((id, i) => [id, i]));
  let count = 0;
  for (let i = 1; i < order.length; i++) if (rank.get(order[i]!)! < rank.get(order[i - 1]!)!) count++;
  return count;
};

describe("joining", () => {
  it("gives one place per user: joining again returns the same ticket and place", async () => {
    await kit.defineRoom("one-place");
    const first = await join("one-place", "repeat-a");
    await join("one-place", "repeat-b");
    const again = await join("one-place", "repeat-a");
    expect(again).toMatchObject({ ticketId: first.ticketId, status: "waiting", position: 1 });
    expect((await join("one-place", "repeat-b")).position).toBe(2);
  });

  it("admits at once while the room does not queue, with a session of sessionSeconds", async () => {
    await kit.defineRoom("open", { mode: "auto", sessionSeconds: 120 });
    const ticket = await join("open", "walk-in");
    expect(ticket.status).toBe("admitted");
    expect(ticket.expiresAt! - ticket.admittedAt!).toBe(120_000);
  });

  it("names no unknown room, and writes nothing for it", async () => {
    // (The per-address limit on joins is the intake's side command: apps/intake/test/rate-limits.test.ts.)
    const unknown = await joinRoom(kit.redis, kit.keys, { roomId: "no-such-room", userId: "x" });
    expect(unknown.result).toBe("unknown_room");
    expect(await kit.redis.exists(kit.keys.room("no-such-room").users)).toBe(0);
  });
});

describe("admission", () => {
  it("is first in, first out by join sequence, with zero inversions", async () => {
    await kit.defineRoom("fifo", { admitPerSecond: 200 });
    const joined: string[] = [];
    for (let i = 0; i < 60; i++) joined.push((await join("fifo", `fifo-${i}`)).ticketId);
    expect((await readTicket(kit.redis, kit.keys, "fifo", joined[59]!))?.position).toBe(60);
    await tickUntil("fifo", () => kit.admittedOrder("fifo").length === 60, "all 60 are admitted");
    const order = kit.admittedOrder("fifo");
    expect(order).toEqual(joined);
    expect(inversions(order, joined)).toBe(0);
    const admitted = await readTicket(kit.redis, kit.keys, "fifo", joined[0]!);
    expect(admitted).toMatchObject({ status: "admitted", position: null });
  });

  it("admits nobody twice, and nothing from a deposed leader's epoch once its successor ticked the room", async () => {
    await kit.defineRoom("fenced", { admitPerSecond: 1000 });
    await kit.defineRoom("not-reached", { admitPerSecond: 1000 });
    for (let i = 0; i < 10; i++) await join("fenced", `fenced-${i}`);
    for (let i = 0; i < 3; i++) await join("not-reached", `not-reached-${i}`);
    const deposed = kit.epoch;
    const successor = await kit.handOver("successor");
    expect(successor).toBeGreaterThan(deposed);
    await tickUntil("fenced", () => kit.admittedOrder("fenced").length === 10, "all 10 are admitted");

    for (let i = 10; i < 15; i++) await join("fenced", `fenced-${i}`);
    await sleep(50);
    expect(await kit.tickOutcome("fenced", { epoch: deposed })).toEqual({
      result: "deposed",
      roomEpoch: successor,
    });
    expect(await kit.tickOutcome("fenced", { epoch: 0 })).toMatchObject({ result: "deposed" });
    expect(kit.admittedOrder("fenced")).toHaveLength(10);
    // What a deposed leader can still do: tick a room its successor has not ticked yet (admit-room-13.lua says
    // why that is harmless). Once the successor has, that room refuses it too.
    expect((await kit.tickOutcome("not-reached", { epoch: deposed })).result).toBe("ticked");
    await kit.tick("not-reached");
    expect((await kit.tickOutcome("not-reached", { epoch: deposed })).result).toBe("deposed");

    await tickUntil("fenced", () => kit.admittedOrder("fenced").length === 15, "all 15 are admitted");
    const order = kit.admittedOrder("fenced");
    expect(new Set(order).size).toBe(order.length);
    await tickUntil("not-reached", () => kit.admittedOrder("not-reached").length === 3, "all 3 are admitted");
    expect(await kit.handOver(LEADER)).toBeGreaterThan(successor);
  });

  it("skips an abandoned place without using capacity, and counts it", async () => {
    // abandonSeconds 2 with a heartbeat every 250 ms: a loaded machine may stretch a gap, never to 2 s.
    await kit.defineRoom("abandon", { admitPerSecond: 1, abandonSeconds: 2 });
    const idle = await join("abandon", "idle-user");
    const present = await join("abandon", "present-user");
    const alsoPresent = await join("abandon", "also-present");
    await kit.tick("abandon"); // starts the clock: nothing is admitted at the first tick
    // The two present users poll (a heartbeat); the idle one says nothing for longer than abandonSeconds.
    for (let i = 0; i < 10; i++) {
      await sleep(250);
      await readTicket(kit.redis, kit.keys, "abandon", present.ticketId);
      await readTicket(kit.redis, kit.keys, "abandon", alsoPresent.ticketId);
    }
    await kit.tick("abandon");
    // Over two seconds went by, but a tick's allowance is at most one second's worth: one admission, and it
    // went to the next present user.
    expect(kit.admittedOrder("abandon")).toEqual([present.ticketId]);
    expect(kit.ended("abandon")).toEqual([[idle.ticketId, "abandoned"]]);
    expect(await readTicket(kit.redis, kit.keys, "abandon", idle.ticketId)).toMatchObject({
      status: "abandoned",
    });
    expect((await readTicket(kit.redis, kit.keys, "abandon", alsoPresent.ticketId))?.position).toBe(1);
    expect((await readRoomStats(kit.redis, kit.keys, "abandon")).abandonedTotal).toBe(1);
    expect(await kit.redis.zscore(kit.keys.room("abandon").ended, idle.ticketId)).not.toBeNull(); // to forget
    // Losing a place is final: joining again queues at the back with a new ticket.
    const back = await join("abandon", "idle-user");
    expect(back.ticketId).not.toBe(idle.ticketId);
    expect(back.position).toBe(2);
  });

  it("takes a revoked ticket out of the queue", async () => {
    await kit.defineRoom("revoke", { admitPerSecond: 1 });
    const gone = await join("revoke", "revoked-user");
    const next = await join("revoke", "next-user");
    expect(await revokeTicket(kit.redis, kit.keys, "revoke", gone.ticketId)).toEqual({
      before: "waiting",
      userId: "revoked-user",
      expiresAt: null,
    });
    expect((await readTicket(kit.redis, kit.keys, "revoke", next.ticketId))?.position).toBe(1);
    expect(await revokeTicket(kit.redis, kit.keys, "revoke", "tkt_NOSUCHTICKET0000000000000")).toBeNull();
    await kit.flushEvents();
    expect(kit.ended("revoke")).toEqual([[gone.ticketId, "revoked"]]);
  });

  it("ends a session when it expires", async () => {
    await kit.defineRoom("short-session", { mode: "off", sessionSeconds: 1 });
    const ticket = await join("short-session", "brief-user");
    expect(ticket.status).toBe("admitted");
    await sleep(1100);
    await kit.tick("short-session");
    expect(await readTicket(kit.redis, kit.keys, "short-session", ticket.ticketId)).toMatchObject({
      status: "expired",
    });
    expect(kit.ended("short-session")).toEqual([[ticket.ticketId, "expired"]]);
    expect(await kit.redis.zscore(kit.keys.room("short-session").ended, ticket.ticketId)).not.toBeNull();
  });
});

describe("a room selling products", () => {
  it("never admits past the units left when a session reserves between the leader's read and the tick", async () => {
    await kit.defineRoom("stock-race", { admitPerSecond: 1000, products: ["prd_race"] });
    const tickets: string[] = [];
    for (let i = 0; i < 4; i++) tickets.push((await join("stock-race", `racer-${i}`)).ticketId);
    /** One tick given `unitsLeft` as the leader read them; what it admitted. 20 ms at 1,000/s: the rate never
     * limits it, the stock does. */
    const tick = async (unitsLeft: number) => {
      await sleep(20);
      const done = await kit.tick("stock-race", {
        stock: { unitsLeft, admitBeyondStock: 0, soldOut: false },
      });
      return done?.admitted;
    };
    let admitted = 0;
    for (let i = 0; i < 20 && admitted < 2; i++) admitted += (await tick(2)) ?? 0;
    expect(admitted).toBe(2);

    // The leader reads 2 units left; then racer-0 orders one (1 left) and the intake marks its session
    // reserved; then the tick runs with the 2 read before. Removing racer-0 from the sessions holding no
    // reservation now would leave room for one more: 3 sessions for 2 units.
    await markReserved(kit.redis, kit.keys, "stock-race", tickets[0]!);
    expect(await tick(2)).toBe(0);
    // The next read has racer-0's unit out; racer-1 still holds the last one.
    expect(await tick(1)).toBe(0);
    await markReserved(kit.redis, kit.keys, "stock-race", tickets[1]!);
    expect(await tick(0)).toBe(0);
    expect(await tick(0)).toBe(0);
    // A unit comes back (an order expired): the next in line is admitted for it, and only one.
    expect(await tick(1)).toBe(1);
    expect(kit.admittedOrder("stock-race")).toEqual(tickets.slice(0, 3));
  });

  it("admits the next in line for the unit a revoked session held, at the next tick", async () => {
    await kit.defineRoom("stock-revoke", { admitPerSecond: 1000, products: ["prd_revoke"] });
    const first = await join("stock-revoke", "revoked-buyer");
    const next = await join("stock-revoke", "next-buyer");
    const tick = async () => {
      await sleep(20);
      const done = await kit.tick("stock-revoke", {
        stock: { unitsLeft: 1, admitBeyondStock: 0, soldOut: false },
      });
      return done?.admitted ?? 0;
    };
    let admitted = 0;
    for (let i = 0; i < 20 && admitted < 1; i++) admitted += await tick();
    expect(kit.admittedOrder("stock-revoke")).toEqual([first.ticketId]);
    // One unit, held by the admitted session that has not reserved: nobody else fits.
    expect(await tick()).toBe(0);

    await revokeTicket(kit.redis, kit.keys, "stock-revoke", first.ticketId);
    // The unit is still unsold and nobody holds it now: the next in line gets it, not after the revoked
    // session's end (sessionSeconds away).
    expect(await tick()).toBe(1);
    expect(kit.admittedOrder("stock-revoke")).toEqual([first.ticketId, next.ticketId]);
    expect(await kit.redis.zscore(kit.keys.room("stock-revoke").unreserved, first.ticketId)).toBeNull();
  });

  // A session that reserved, then left (revoked, or its order paid so the worker ended it), while the leader's
  // next tick runs with the stock read before the reservation: the unit is taken, so nobody more until the stock
  // says a unit is left again (its order expired, a restock).
  it.each([
    ["revoked", (roomId: string, ticketId: string) => revokeTicket(kit.redis, kit.keys, roomId, ticketId)],
    [
      "ended on its order",
      (roomId: string, ticketId: string) => endOrderSessions(kit.redis, kit.keys, [{ roomId, ticketId }]),
    ],
  ] as const)("keeps a session's reservation counted after it is %s, until the stock the leader reads has it", async (how, leave) => {
    const roomId = `stock-reserved-${how.replaceAll(" ", "-")}`;
    await kit.defineRoom(roomId, { admitPerSecond: 1000, products: [`prd_${how.replaceAll(" ", "_")}`] });
    const first = await join(roomId, "reserving-buyer");
    const next = await join(roomId, "waiting-buyer");
    const tick = async (unitsLeft: number) => {
      await sleep(20);
      const done = await kit.tick(roomId, { stock: { unitsLeft, admitBeyondStock: 0, soldOut: false } });
      return done?.admitted ?? 0;
    };
    let admitted = 0;
    for (let i = 0; i < 20 && admitted < 1; i++) admitted += await tick(1);
    expect(kit.admittedOrder(roomId)).toEqual([first.ticketId]);
    await markReserved(kit.redis, kit.keys, roomId, first.ticketId);
    await leave(roomId, first.ticketId);
    // It has left: its ticket says so and the live count no longer holds it; only its mark stays.
    expect((await readTicket(kit.redis, kit.keys, roomId, first.ticketId))?.status).toBe(
      how === "revoked" ? "revoked" : "expired",
    );
    const room = kit.keys.room(roomId);
    expect(await kit.redis.zscore(room.sessions, first.ticketId)).toBeNull();
    expect(await kit.redis.zscore(room.unreserved, first.ticketId)).toBe("0");
    expect(await tick(1)).toBe(0);
    // The stock has the reservation now (0 left); the mark goes at the tick after the one that saw it.
    expect(await tick(0)).toBe(0);
    expect(await tick(0)).toBe(0);
    expect(await kit.redis.zscore(room.unreserved, first.ticketId)).toBeNull();
    expect(kit.admittedOrder(roomId)).toEqual([first.ticketId]);
    expect(await tick(1)).toBe(1);
    expect(kit.admittedOrder(roomId)).toEqual([first.ticketId, next.ticketId]);
  });
});

describe("forgetting", () => {
  it("forgets a ticket a while after it ended: its record and its user's place go, and the user joins afresh", async () => {
    await kit.defineRoom("forget", { admitPerSecond: 1 });
    const gone = await join("forget", "forgotten-user");
    const stays = await join("forget", "still-waiting");
    await revokeTicket(kit.redis, kit.keys, "forget", gone.ticketId);
    await kit.lead();
    await kit.tick("forget", { endedRetentionMs: 60_000 });
    // Within the retention a page still learns how its ticket ended.
    expect((await readTicket(kit.redis, kit.keys, "forget", gone.ticketId))?.status).toBe("revoked");
    await sleep(5);
    await kit.tick("forget", { endedRetentionMs: 0 });
    expect(await readTicket(kit.redis, kit.keys, "forget", gone.ticketId)).toBeNull();
    const room = kit.keys.room("forget");
    expect(await kit.redis.hget(room.users, "forgotten-user")).toBeNull();
    expect(await kit.redis.zcard(room.ended)).toBe(0);
    // A ticket that has not ended is untouched.
    expect(await readTicket(kit.redis, kit.keys, "forget", stays.ticketId)).not.toBeNull();
    expect(await kit.redis.hget(room.users, "still-waiting")).toBe(stays.ticketId);
    const again = await join("forget", "forgotten-user");
    expect(again.ticketId).not.toBe(gone.ticketId);
  });
});

describe("the pre-queue", () => {
  it("shuffles joins before startsAt once, at the start, and queues later joins behind them in order", async () => {
    // The start is far off while the early joins run, then moved to now (no race with the clock, as bigDrop).
    await kit.defineRoom("drop", { admitPerSecond: 1, startsAt: Date.now() + 600_000 });
    const early: string[] = [];
    for (let i = 0; i < 30; i++) {
      const ticket = await join("drop", `early-${i}`);
      expect(ticket.status).toBe("early");
      expect(ticket.position).toBe(i + 1); // the pre-queue's size: a place is not decided yet
      early.push(ticket.ticketId);
    }
    await kit.defineRoom("drop", { admitPerSecond: 1, startsAt: Date.now() - 1 });
    const late: string[] = [];
    for (let i = 0; i < 5; i++) late.push((await join("drop", `late-${i}`)).ticketId);
    // The first join closed the pre-queue; the leader's tick orders it (pre-queue-order.ts) and moves it.
    await kit.tick("drop");

    const positions = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => (await readTicket(kit.redis, kit.keys, "drop", id))?.position));
    const earlyPositions = await positions(early);
    // Every early join has a place among the first 30, and the order is not the arrival order.
    expect([...earlyPositions].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(earlyPositions).not.toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // The places are the order the published proof recomputes, not a draw made at join.
    const proof = await kit.shuffleProof("drop");
    const byPlace = [...early].sort(
      (a, b) => earlyPositions[early.indexOf(a)]! - earlyPositions[early.indexOf(b)]!,
    );
    expect(verifyShuffleProof(proof)).toEqual(byPlace);
    expect(await positions(late)).toEqual([31, 32, 33, 34, 35]);
    // Once: neither a tick nor another join shuffles again.
    await kit.tick("drop");
    await join("drop", "late-5");
    expect(await positions(early)).toEqual(earlyPositions);
  });

  /** 2,500 early joins to a room whose start is far off, then the start moved to now (no race with the clock). */
  const bigDrop = async (roomId: string) => {
    await kit.defineRoom(roomId, { admitPerSecond: 10_000, startsAt: Date.now() + 600_000 });
    const early = await Promise.all(
      Array.from({ length: 2500 }, async (_, i) => (await join(roomId, `early-${i}`)).ticketId),
    );
    await kit.defineRoom(roomId, { admitPerSecond: 10_000, startsAt: Date.now() - 1 });
    return early;
  };

  it("keeps a lane pass's lane through the pre-queue: drawn with everyone, then placed in its lane", async () => {
    const lanes = [{ name: "members", share: 0.5 }];
    await kit.defineRoom("laned-drop", { admitPerSecond: 1, startsAt: Date.now() + 600_000, lanes });
    const plain: string[] = [];
    const members: string[] = [];
    for (let i = 0; i < 6; i++) plain.push((await join("laned-drop", `plain-${i}`)).ticketId);
    for (let i = 0; i < 3; i++) {
      const outcome = await joinRoom(kit.redis, kit.keys, {
        roomId: "laned-drop",
        userId: `member-${i}`,
        pass: { kind: "lane", lane: "members" },
      });
      if (outcome.result !== "joined") throw new Error(`member join: ${outcome.result}`);
      expect(outcome.ticket).toMatchObject({ status: "early", position: 6 + i + 1 }); // one pre-queue for all
      members.push(outcome.ticket.ticketId);
    }
    await kit.defineRoom("laned-drop", { admitPerSecond: 1, startsAt: Date.now() - 1, lanes });
    await kit.tick("laned-drop");

    // One draw for the whole pre-queue, as the proof recomputes it; each lane keeps the draw's order.
    const drawn = verifyShuffleProof(await kit.shuffleProof("laned-drop"));
    expect([...drawn].sort()).toEqual([...plain, ...members].sort());
    const place = async (id: string) =>
      (await readTicket(kit.redis, kit.keys, "laned-drop", id))?.position ?? null;
    for (const lane of [plain, members]) {
      const inDrawOrder = drawn.filter((id) => lane.includes(id));
      const places = await Promise.all(inDrawOrder.map(place));
      expect(places).toEqual(inDrawOrder.map((_, i) => i + 1)); // a place in its own lane
    }

    // The lane takes its share of the admissions (1:1 here), FIFO inside each lane.
    await kit.defineRoom("laned-drop", { admitPerSecond: 1000, startsAt: Date.now() - 1, lanes });
    await tickUntil(
      "laned-drop",
      () => kit.admittedOrder("laned-drop").length === plain.length + members.length,
      "everyone is admitted",
    );
    const order = kit.admittedOrder("laned-drop");
    const firstSix = order.slice(0, 6);
    expect(firstSix.filter((id) => members.includes(id))).toEqual(drawn.filter((id) => members.includes(id)));
    expect(order.filter((id) => plain.includes(id))).toEqual(drawn.filter((id) => plain.includes(id)));
  });

  it("lets no later join of a lane pass the pre-queue's members of that lane while the pre-queue moves", async () => {
    const lanes = [{ name: "members", share: 0.5 }];
    const member = { kind: "lane", lane: "members" } as const;
    await kit.defineRoom("laned-big-drop", { admitPerSecond: 10_000, startsAt: Date.now() + 600_000, lanes });
    // 2,500 early joins, every fifth a member: more than one step (1,000) to move.
    const early = await Promise.all(
      Array.from({ length: 2500 }, async (_, i) => {
        const pass = i % 5 === 0 ? member : null;
        const outcome = await joinRoom(kit.redis, kit.keys, {
          roomId: "laned-big-drop",
          userId: `e-${i}`,
          pass,
        });
        if (outcome.result !== "joined") throw new Error(`early join: ${outcome.result}`);
        return { ticketId: outcome.ticket.ticketId, member: pass !== null };
      }),
    );
    await kit.defineRoom("laned-big-drop", { admitPerSecond: 10_000, startsAt: Date.now() - 1, lanes });
    const late = await joinRoom(kit.redis, kit.keys, {
      roomId: "laned-big-drop",
      userId: "late-member",
      pass: member,
    });
    if (late.result !== "joined") throw new Error(`late join: ${late.result}`);
    await kit.lead();
    await tickUntil(
      "laned-big-drop",
      () => kit.admittedOrder("laned-big-drop").length === 2501,
      "everyone is admitted",
    );
    const members = new Set(early.filter((e) => e.member).map((e) => e.ticketId));
    const drawn = verifyShuffleProof(await kit.shuffleProof("laned-big-drop"));
    const admittedMembers = kit
      .admittedOrder("laned-big-drop")
      .filter((id) => members.has(id) || id === late.ticket.ticketId);
    expect(admittedMembers).toEqual([...drawn.filter((id) => members.has(id)), late.ticket.ticketId]);
  });

  it("moves a pre-queue larger than one step a step per call, admitting none of it out of turn", async () => {
    const early = await bigDrop("big-drop");
    const room = kit.keys.room("big-drop");
    // The first call after the start closes the pre-queue and reserves its 2,500 places; it moves none: the
    // order is the leader's to compute. Its tick orders them and moves 1,000 (one step), not all of them.
    const late = await join("big-drop", "late-0");
    expect(await kit.redis.zcard(room.early)).toBe(2500);
    expect(await kit.redis.zcard(room.queue)).toBe(1);
    await kit.lead();
    await kit.tick("big-drop");
    expect(await kit.redis.zcard(room.early)).toBe(1500);
    expect(await kit.redis.zcard(room.queue)).toBe(1001 - kit.admittedOrder("big-drop").length);
    await tickUntil("big-drop", () => kit.admittedOrder("big-drop").length === 2501, "everyone is admitted");
    const order = kit.admittedOrder("big-drop");
    expect(order.at(-1)).toBe(late.ticketId);
    expect(order.slice(0, 2500)).toEqual(verifyShuffleProof(await kit.shuffleProof("big-drop")));
    expect(new Set(order.slice(0, 2500))).toEqual(new Set(early));
  });

  it("finishes a shuffle in progress when startsAt moves, and the new pre-queue waits for its own start", async () => {
    const early = await bigDrop("moved-start");
    const late = await join("moved-start", "late-0"); // closes the pre-queue: 2,500 places reserved
    await kit.defineRoom("moved-start", { admitPerSecond: 10_000, startsAt: Date.now() + 60_000 });
    const next = await join("moved-start", "next-0");
    expect(next.status).toBe("early");
    expect(next.position).toBe(1); // its own round, not the 1,500 still moving
    await kit.lead();
    await tickUntil(
      "moved-start",
      () => kit.admittedOrder("moved-start").length === 2501,
      "the queue is admitted",
    );
    const order = kit.admittedOrder("moved-start");
    expect(order.at(-1)).toBe(late.ticketId);
    expect(new Set(order.slice(0, 2500))).toEqual(new Set(early));
    await kit.tick("moved-start");
    expect((await readTicket(kit.redis, kit.keys, "moved-start", next.ticketId))?.status).toBe("early");
  });

  it("keeps admitting its queue after a start when a later start is set", async () => {
    await kit.defineRoom("restart", { admitPerSecond: 10_000, startsAt: Date.now() + 600_000 });
    for (let i = 0; i < 10; i++) await join("restart", `early-${i}`);
    await kit.defineRoom("restart", { admitPerSecond: 10_000, startsAt: Date.now() - 1 });
    const late = [];
    for (let i = 0; i < 5; i++) late.push((await join("restart", `late-${i}`)).ticketId);
    await kit.defineRoom("restart", { admitPerSecond: 10_000, startsAt: Date.now() + 600_000 });
    const next = await join("restart", "next-0");
    await kit.lead();
    await tickUntil("restart", () => kit.admittedOrder("restart").length === 15, "the first 15 are admitted");
    expect(kit.admittedOrder("restart").slice(10)).toEqual(late);
    expect((await readTicket(kit.redis, kit.keys, "restart", next.ticketId))?.status).toBe("early");
  });

  it("starts at once when the operator removes startsAt: the pre-queue goes first, later joins behind it", async () => {
    await kit.defineRoom("start-now", { admitPerSecond: 1, startsAt: Date.now() + 60_000 });
    const early: string[] = [];
    for (let i = 0; i < 10; i++) early.push((await join("start-now", `early-${i}`)).ticketId);
    await kit.defineRoom("start-now", { admitPerSecond: 1, startsAt: null });
    const late = await join("start-now", "late-0");
    expect(late.status).toBe("waiting");
    await kit.tick("start-now"); // orders and moves the pre-queue
    expect((await readTicket(kit.redis, kit.keys, "start-now", late.ticketId))?.position).toBe(11);
    const places = await Promise.all(
      early.map(async (id) => (await readTicket(kit.redis, kit.keys, "start-now", id))?.position),
    );
    expect([...places].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it("orders the closed list as the leader reads it: a ticket revoked after the close is left out", async () => {
    await kit.defineRoom("revoked-early", { admitPerSecond: 10_000, startsAt: Date.now() + 600_000 });
    const early: string[] = [];
    for (let i = 0; i < 10; i++) early.push((await join("revoked-early", `early-${i}`)).ticketId);
    await kit.defineRoom("revoked-early", { admitPerSecond: 10_000, startsAt: Date.now() - 1 });
    const late = await join("revoked-early", "late-0"); // closes the list
    expect(await revokeTicket(kit.redis, kit.keys, "revoked-early", early[3]!)).toMatchObject({
      before: "early",
    });
    await kit.lead();
    await tickUntil(
      "revoked-early",
      () => kit.admittedOrder("revoked-early").length === 10,
      "the other nine and the late join are admitted",
    );
    const proof = await kit.shuffleProof("revoked-early");
    expect(proof.tickets).toEqual(early.filter((id) => id !== early[3]).sort());
    expect(kit.admittedOrder("revoked-early")).toEqual([...verifyShuffleProof(proof), late.ticketId]);
  });

  it("mints a seed at the start for a round scheduled without one, and dates its commitment then", async () => {
    await kit.defineRoom("unseeded", { admitPerSecond: 10_000, startsAt: Date.now() + 600_000 });
    const early: string[] = [];
    for (let i = 0; i < 5; i++) early.push((await join("unseeded", `early-${i}`)).ticketId);
    // As a start scheduled by a release that committed no seed left it.
    await kit.redis.hdel(kit.keys.room("unseeded").state, "nextSeed", "nextCommitment", "nextCommittedAt");
    await kit.defineRoom("unseeded", { admitPerSecond: 10_000, startsAt: Date.now() - 1 });
    await kit.lead();
    await kit.tick("unseeded");
    const reading = await readShuffleProof(kit.redis, kit.keys, "unseeded");
    expect(reading).toMatchObject({ status: "published" });
    expect(reading!.committedAt).toBeGreaterThanOrEqual(reading!.closedAt!);
    const order = verifyShuffleProof(await kit.shuffleProof("unseeded"));
    expect([...order].sort()).toEqual([...early].sort());
    await tickUntil(
      "unseeded",
      () => kit.admittedOrder("unseeded").length === 5,
      "the pre-queue is admitted",
    );
    expect(kit.admittedOrder("unseeded")).toEqual(order);
  });

  it("lets the pre-queue in when the room is turned off before startsAt, and forms a new one if turned on again", async () => {
    const startsAt = Date.now() + 60_000;
    await kit.defineRoom("turned-off", { admitPerSecond: 1, startsAt });
    const early = [
      (await join("turned-off", "early-0")).ticketId,
      (await join("turned-off", "early-1")).ticketId,
    ];
    await kit.defineRoom("turned-off", { mode: "off", admitPerSecond: 1, startsAt });
    await kit.lead();
    await kit.tick("turned-off");
    for (const id of early) {
      expect((await readTicket(kit.redis, kit.keys, "turned-off", id))?.status).toBe("admitted");
    }
    await kit.defineRoom("turned-off", { mode: "on", admitPerSecond: 1, startsAt });
    expect((await join("turned-off", "early-2")).status).toBe("early");
  });
});

describe("auto mode", () => {
  it("starts queueing under backpressure and stops after the cool-down with an empty queue", async () => {
    // A 2 s cool-down: the tick right after the admission must fall inside it, even on a loaded machine.
    const cooldownMs = 2_000;
    await kit.defineRoom("auto", { mode: "auto", admitPerSecond: 100 });
    expect(await kit.tick("auto", { cooldownMs })).toMatchObject({ queueing: false });
    expect(await kit.tick("auto", { backpressure: true, cooldownMs })).toMatchObject({ queueing: true });
    expect((await join("auto", "auto-user")).status).toBe("waiting");
    await tickUntil("auto", () => kit.admittedOrder("auto").length === 1, "the waiting user is admitted");
    expect(await kit.tick("auto", { cooldownMs })).toMatchObject({ queueing: true });
    await sleep(cooldownMs + 100);
    expect(await kit.tick("auto", { cooldownMs })).toMatchObject({ queueing: false });
  });
});
