// The admission gate inside the enqueue script, against the real Redis: the user's token bucket, and a
// queueing room that only lets admitted tickets of the same user through. A refusal stores nothing. (The client
// address's bucket is a side command of its own: address-bucket.test.ts.)
import { type AdmissionCheck, enqueueOperation } from "@floodgate/queue";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketArgs, joinRoom, revokeTicket } from "../src/index.ts";
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
}

function gate(request: GateRequest): AdmissionCheck {
  const room = request.roomId ? kit.keys.room(request.roomId) : null;
  const placeholder = kit.keys.userSlotPlaceholder(request.userId);
  return {
    keys: [
      kit.keys.userBucket("payments", request.userId),
      room?.state ?? placeholder,
      room?.tickets ?? placeholder,
    ],
    args: [...bucketArgs(request.user ?? null), room ? "1" : "0", request.userId, request.ticketId ?? ""],
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
    const user = { rate: 1, burst: 3 };
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
      expect(refused.retryAfterMs).toBeLessThanOrEqual(1000);
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

describe("a room that queues", () => {
  it("refuses requests without an admitted ticket of the same user, and stores nothing", async () => {
    await kit.defineRoom("gate-room", { mode: "off", sessionSeconds: 1 });
    // Not queueing: joins are admitted at once.
    const alice = await joinRoom(kit.redis, kit.keys, { roomId: "gate-room", userId: "alice" });
    const bob = await joinRoom(kit.redis, kit.keys, { roomId: "gate-room", userId: "bob" });
    if (alice.result !== "joined" || bob.result !== "joined") throw new Error("joins refused");
    expect(alice.ticket.status).toBe("admitted");
    await kit.defineRoom("gate-room", { mode: "on", sessionSeconds: 1 });

    const before = await streamLength();
    const reasons = async (request: GateRequest) => {
      const outcome = await pay({ ...request, roomId: "gate-room" });
      return outcome.result === "waiting_room_required" ? outcome.reason : outcome.result;
    };
    expect(await reasons({ userId: "alice" })).toBe("no_token");
    expect(await reasons({ userId: "alice", ticketId: "tkt_NOSUCHTICKET0000000000000" })).toBe(
      "unknown_ticket",
    );
    expect(await reasons({ userId: "alice", ticketId: bob.ticket.ticketId })).toBe("wrong_user");
    expect(await reasons({ userId: "alice", ticketId: alice.ticket.ticketId })).toBe("accepted");
    await revokeTicket(kit.redis, kit.keys, "gate-room", bob.ticket.ticketId);
    expect(await reasons({ userId: "bob", ticketId: bob.ticket.ticketId })).toBe("revoked");
    await sleep(1100); // alice's one-second session ends
    expect(await reasons({ userId: "alice", ticketId: alice.ticket.ticketId })).toBe("expired");
    expect(await streamLength()).toBe(before + 1);
  });

  it("lets everyone through while it does not queue, and counts the guarded traffic per second", async () => {
    await kit.defineRoom("open-room", { mode: "auto" });
    for (let i = 0; i < 3; i++)
      expect((await pay({ userId: `open-${i}`, roomId: "open-room" })).result).toBe("accepted");
    const state = await kit.redis.hgetall(kit.keys.room("open-room").state);
    expect(Number(state.trafficCount) + Number(state.trafficPrev ?? 0)).toBeGreaterThanOrEqual(3);
  });
});
