// The admission gate inside the enqueue script, against the real Redis: the user's token bucket, and a
// queueing room (its mirror in the user's slot) that only lets tickets the user holds a pass for through. A
// refusal stores nothing. (The client address's bucket is a side command of its own: address-bucket.test.ts.
// A token of another user is refused by the intake from its claims: apps/intake/test/waiting-room.test.ts.)
import { type AdmissionCheck, enqueueOperation } from "@floodgate/queue";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admissionTokenDigest,
  bucketArgs,
  countRoomTraffic,
  grantPass,
  joinRoom,
  readRoomDefinition,
  revokePass,
  revokeTicket,
  type TicketState,
  writeRoomGate,
} from "../src/index.ts";
import { paymentMessage, RoomTestKit, sleep } from "./support/room-test-kit.ts";

let env: TestEnvironment;
let kit: RoomTestKit;

beforeAll(async () => {
  env = await createTestEnvironment("admission-gate", { shards: 1 });
  kit = await RoomTestKit.start(env.config);
});

afterAll(async () => {
  await kit?.stop();
  await env?.cleanup();
});

interface GateRequest {
  userId: string;
  user?: { rate: number; burst: number } | null;
  roomId?: string;
  ticketId?: string;
  /** The token presented for the ticket: by default the one grant() hands out for it. */
  token?: string;
  /** The intake verified the token's signature (asked for by a pass without a digest). */
  signed?: boolean;
}

/** The token grant() hands out for a ticket (the gate compares digests only; no signature here). */
const tokenFor = (ticketId: string) => `header.claims-of-${ticketId}.signature`;

function gate(request: GateRequest): AdmissionCheck {
  const { roomId, userId } = request;
  const placeholder = kit.keys.userSlotPlaceholder(userId);
  return {
    keys: [
      kit.keys.userBucket("payments", userId),
      roomId ? kit.keys.roomGateFor(roomId, userId) : placeholder,
      roomId ? kit.keys.roomPasses(roomId, userId) : placeholder,
    ],
    args: [
      ...bucketArgs(request.user ?? null),
      roomId ? "1" : "0",
      userId,
      request.ticketId ?? "",
      request.ticketId ? admissionTokenDigest(request.token ?? tokenFor(request.ticketId)) : "",
      request.signed ? "1" : "0",
    ],
  };
}

const pay = (request: GateRequest) =>
  enqueueOperation(kit.redis, kit.queueKeys, {
    message: paymentMessage(request.userId),
    fingerprint: "f",
    idempotencyTtlSeconds: 60,
    admission: gate(request),
  });

const streamLength = async () =>
  (await Promise.all(kit.queueKeys.allStreams().map((stream) => kit.redis.xlen(stream)))).reduce(
    (a, b) => a + b,
    0,
  );

describe("token buckets", () => {
  it("let a user's burst through, then refuse with the time until the next token, storing nothing", async () => {
    // One token every 10 s: the five calls see no refill unless the machine stalls that long between them.
    const user = { rate: 0.1, burst: 3 };
    const before = await streamLength();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await pay({ userId: "burst-user", user }));
    expect(outcomes.map((o) => o.result)).toEqual([
      "accepted",
      "accepted",
      "accepted",
      "rate_limited",
      "rate_limited",
    ]);
    expect(
      outcomes.slice(0, 3).map((o) => (o.result === "accepted" ? o.admission?.user?.remaining : null)),
    ).toEqual([2, 1, 0]);
    const refused = outcomes[3]!;
    expect(refused).toMatchObject({ result: "rate_limited", scope: "user" });
    if (refused.result === "rate_limited") {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
    }
    expect(await streamLength()).toBe(before + 3);
    // Another user has a bucket of their own.
    expect((await pay({ userId: "other-user", user })).result).toBe("accepted");
  });

  it("give a token back at the bucket's rate", async () => {
    // One token every 2 s: a refusal right after the first call holds unless the machine stalls 2 s between two
    // calls, and the refill is waited for as long as the bucket says it needs (a late timer only adds tokens).
    const user = { rate: 0.5, burst: 1 };
    expect((await pay({ userId: "refill-user", user })).result).toBe("accepted");
    const refused = await pay({ userId: "refill-user", user });
    if (refused.result !== "rate_limited") throw new Error(`expected rate_limited, got ${refused.result}`);
    expect(refused.scope).toBe("user");
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(2000);
    await sleep(refused.retryAfterMs + 20); // + timer and clock rounding between Node and Redis TIME
    expect((await pay({ userId: "refill-user", user })).result).toBe("accepted");
    // One token came back, not more.
    expect((await pay({ userId: "refill-user", user })).result).toBe("rate_limited");
  });

  it("keep every key of a call without a room in the user's partition slot", () => {
    const check = gate({ userId: "slot-user", user: { rate: 1, burst: 1 } });
    const tag = `{p${kit.queueKeys.partitionForUser("slot-user")}}`;
    expect(check.keys.every((key) => key.includes(tag))).toBe(true);
  });

  it("report no limit for a scope without one", async () => {
    const outcome = await pay({ userId: "free-user" });
    expect(outcome).toMatchObject({ result: "accepted", admission: { user: null, ip: null } });
  });
});

/** What an intake does before a token for an admitted ticket leaves it. */
async function grant(ticket: TicketState, token = tokenFor(ticket.ticketId)): Promise<boolean> {
  const handedOut = await grantPass(
    kit.redis,
    kit.keys,
    { ...ticket, expiresAt: ticket.expiresAt ?? 0 },
    token,
  );
  return handedOut !== null;
}

/** What the admin route does: the ticket in the room's slot, then the pass in the user's. */
async function revoke(roomId: string, ticketId: string): Promise<void> {
  const revoked = await revokeTicket(kit.redis, kit.keys, roomId, ticketId);
  if (!revoked) throw new Error(`no ticket ${ticketId}`);
  await revokePass(kit.redis, kit.keys, { roomId, ticketId, ...revoked });
}

describe("a room that queues", () => {
  it("refuses requests without a pass of the user's for an admitted ticket, and stores nothing", async () => {
    // 5 s sessions: the calls before the expiry check run well inside them, however slow this machine is.
    await kit.defineRoom("gate-room", { mode: "off", sessionSeconds: 5 });
    // Not queueing: joins are admitted at once.
    const alice = await joinRoom(kit.redis, kit.keys, { roomId: "gate-room", userId: "alice" });
    const bob = await joinRoom(kit.redis, kit.keys, { roomId: "gate-room", userId: "bob" });
    if (alice.result !== "joined" || bob.result !== "joined") throw new Error("joins refused");
    expect(alice.ticket.status).toBe("admitted");
    expect(alice.ticket.expiresAt! - alice.ticket.admittedAt!).toBe(5_000);
    expect(await grant(alice.ticket)).toBe(true);
    expect(await grant(bob.ticket)).toBe(true);
    await kit.defineRoom("gate-room", { mode: "on", sessionSeconds: 5 });

    const before = await streamLength();
    const reasons = async (request: GateRequest) => {
      const outcome = await pay({ ...request, roomId: "gate-room" });
      return outcome.result === "waiting_room_required" ? outcome.reason : outcome.result;
    };
    expect(await reasons({ userId: "alice" })).toBe("no_token");
    expect(await reasons({ userId: "alice", ticketId: "tkt_NOSUCHTICKET0000000000000" })).toBe(
      "unknown_ticket",
    );
    // Bob's ticket is not among Alice's passes (the intake refuses Bob's token for Alice as wrong_user first).
    expect(await reasons({ userId: "alice", ticketId: bob.ticket.ticketId })).toBe("unknown_ticket");
    expect(await reasons({ userId: "alice", ticketId: alice.ticket.ticketId })).toBe("accepted");
    expect(await reasons({ userId: "bob", ticketId: bob.ticket.ticketId })).toBe("accepted");
    await revoke("gate-room", bob.ticket.ticketId);
    expect(await reasons({ userId: "bob", ticketId: bob.ticket.ticketId })).toBe("revoked");
    // A grant after the revoke (its read came first) does not bring the admission back.
    expect(await grant(bob.ticket)).toBe(false);
    expect(await reasons({ userId: "bob", ticketId: bob.ticket.ticketId })).toBe("revoked");
    // Alice's session ends: the gate compares the pass's expiresAt with Redis TIME.
    const redisNow = async () => {
      const [seconds, micros] = await kit.redis.time();
      return Number(seconds) * 1000 + Number(micros) / 1000;
    };
    while ((await redisNow()) <= alice.ticket.expiresAt!) await sleep(100);
    expect(await reasons({ userId: "alice", ticketId: alice.ticket.ticketId })).toBe("expired");
    expect(await streamLength()).toBe(before + 2);
  });

  it("refuses an admitted ticket whose pass was never granted", async () => {
    await kit.defineRoom("ungranted", { mode: "off" });
    const joined = await joinRoom(kit.redis, kit.keys, { roomId: "ungranted", userId: "carol" });
    if (joined.result !== "joined") throw new Error("join refused");
    await kit.defineRoom("ungranted", { mode: "on" });
    const outcome = await pay({ userId: "carol", roomId: "ungranted", ticketId: joined.ticket.ticketId });
    expect(outcome).toMatchObject({ result: "waiting_room_required", reason: "unknown_ticket" });
    expect(await grant(joined.ticket)).toBe(true);
    const admitted = await pay({ userId: "carol", roomId: "ungranted", ticketId: joined.ticket.ticketId });
    expect(admitted.result).toBe("accepted");
  });

  it("admits only the token handed out first; a pass of the previous release asks for the signature", async () => {
    await kit.defineRoom("digest-room", { mode: "off" });
    const joined = await joinRoom(kit.redis, kit.keys, { roomId: "digest-room", userId: "dora" });
    const legacy = await joinRoom(kit.redis, kit.keys, { roomId: "digest-room", userId: "lee" });
    if (joined.result !== "joined" || legacy.result !== "joined") throw new Error("joins refused");
    await kit.defineRoom("digest-room", { mode: "on" });
    const { ticketId } = joined.ticket;
    const passes = { ...joined.ticket, expiresAt: joined.ticket.expiresAt ?? 0 };
    // Every grant hands out the token the first one stored, whatever token the later caller signed.
    expect(await grantPass(kit.redis, kit.keys, passes, "first")).toBe("first");
    expect(await grantPass(kit.redis, kit.keys, passes, "second")).toBe("first");
    const reasons = async (request: Partial<GateRequest>) => {
      const outcome = await pay({ userId: "dora", roomId: "digest-room", ticketId, ...request });
      return outcome.result === "waiting_room_required" ? outcome.reason : outcome.result;
    };
    expect(await reasons({ token: "second" })).toBe("not_handed_out");
    // A signature the intake verified does not stand in for the digest a pass holds.
    expect(await reasons({ token: "second", signed: true })).toBe("not_handed_out");
    expect(await reasons({ token: "first" })).toBe("accepted");

    // The previous release's grant: the status alone, no token stored, and none added by a later grant.
    const lee = legacy.ticket;
    await kit.redis.hset(
      kit.keys.roomPasses("digest-room", "lee"),
      lee.ticketId,
      `admitted|${lee.expiresAt}`,
    );
    const leeReasons = async (signed: boolean) => {
      const outcome = await pay({ userId: "lee", roomId: "digest-room", ticketId: lee.ticketId, signed });
      return outcome.result === "waiting_room_required" ? outcome.reason : outcome.result;
    };
    expect(await leeReasons(false)).toBe("unsigned");
    expect(await leeReasons(true)).toBe("accepted");
    const leePasses = { ...lee, expiresAt: lee.expiresAt ?? 0 };
    expect(await grantPass(kit.redis, kit.keys, leePasses, "mine")).toBe("mine");
    expect(await grantPass(kit.redis, kit.keys, leePasses, "yours")).toBe("yours");
    expect(await leeReasons(false)).toBe("unsigned");
  });

  it("judges by the queueing mirror in the user's slot, which the room's writers keep", async () => {
    await kit.defineRoom("mirrored", { mode: "on" });
    const definition = await readRoomDefinition(kit.redis, kit.keys, "mirrored");
    expect(definition?.mode).toBe("on");
    const gates = kit.keys.roomGates("mirrored");
    expect(gates).toHaveLength(kit.queueKeys.partitions);
    expect(await Promise.all(gates.map((key) => kit.redis.get(key)))).toEqual(gates.map(() => "1"));
    expect((await pay({ userId: "mirror-user", roomId: "mirrored" })).result).toBe("waiting_room_required");
    // Until its writer copies a change into the mirror, a request is judged by the previous value.
    await writeRoomGate(kit.redis, kit.keys, "mirrored", false);
    expect((await pay({ userId: "mirror-user", roomId: "mirrored" })).result).toBe("accepted");
    await kit.defineRoom("mirrored", { mode: "off" });
    expect(await Promise.all(gates.map((key) => kit.redis.get(key)))).toEqual(gates.map(() => "0"));
  });

  it("keeps every key of a guarded call in the user's partition slot", () => {
    const check = gate({ userId: "slot-user", roomId: "gate-room", ticketId: "tkt_x" });
    const tag = `{p${kit.queueKeys.partitionForUser("slot-user")}}`;
    expect(check.keys.every((key) => key.includes(tag))).toBe(true);
  });

  it("lets everyone through while it does not queue; the intakes' traffic counts add up per second", async () => {
    await kit.defineRoom("open-room", { mode: "auto" });
    for (let i = 0; i < 3; i++)
      expect((await pay({ userId: `open-${i}`, roomId: "open-room" })).result).toBe("accepted");
    await countRoomTraffic(kit.redis, kit.keys, "open-room", 2);
    await countRoomTraffic(kit.redis, kit.keys, "open-room", 3);
    const state = await kit.redis.hgetall(kit.keys.room("open-room").state);
    // Both flushes land in this second, or the first in the one before.
    expect(Number(state.trafficCount) + Number(state.trafficPrev ?? 0)).toBe(5);
  });
});
