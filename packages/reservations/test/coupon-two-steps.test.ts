// A coupon issue as a Redis Cluster runs it (issue-coupon-in-two-steps.ts): a unit reserved in the coupon's slot,
// then the issue recorded in the user's. Called directly, so it runs on one Redis too; both test projects run it.
// What must hold whatever the interleaving: never more than `quantity` units out, one per user, every unit of a
// request not recorded given back (at once when the intake knows, by the sweep when it died between the steps).
import { QueueKeys, unlimitedAdmission } from "@floodgate/queue";
import { createRedis, NO_REPLICA_WAIT, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { commitCouponIssue, reserveCoupon } from "@floodgate/redis-scripts";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMIT_WINDOW_MS, SWEEP_AFTER_MS, sweepCouponReservations, writeCouponState } from "../src/index.ts";
import { issueCouponInTwoSteps } from "../src/issue-coupon-in-two-steps.ts";
import { couponIssueMessage } from "./support/reservation-requests.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let couponCount = 0;

beforeAll(async () => {
  env = await createTestEnvironment("coupon-two-steps", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

async function newCoupon(quantity: number): Promise<string> {
  const id = `cpn_twostep${String(couponCount++).padStart(17, "0")}`;
  await writeCouponState(redis, keys, { id, quantity, startsAt: null, endsAt: null });
  return id;
}

function couponKeys(couponId: string) {
  return {
    stateKey: keys.couponState(couponId),
    holdersKey: keys.couponHolders(couponId),
    reservationsKey: keys.couponReservations(couponId),
  };
}

const messageFor = couponIssueMessage;

const DISCOUNT = { type: "fixed", value: 500 } as const;

function issue(couponId: string, userId: string, idempotencyKey?: string) {
  return issueCouponInTwoSteps(
    redis,
    keys,
    messageFor(couponId, userId),
    DISCOUNT,
    unlimitedAdmission(keys, userId),
    {
      ...(idempotencyKey === undefined ? {} : { key: idempotencyKey }),
      fingerprint: `fp-${couponId}-${userId}`,
      ttlSeconds: 600,
    },
    NO_REPLICA_WAIT,
  );
}

async function couponCounts(couponId: string) {
  return {
    issued: Number(await redis.hget(keys.couponState(couponId), "issued")),
    holders: await redis.hlen(keys.couponHolders(couponId)),
    reserved: await redis.zcard(keys.couponReservations(couponId)),
  };
}

/** The ZREM after an accepted commit and the releases after refusals are sent without waiting for them. */
async function settled(couponId: string, expected: { issued: number; holders: number; reserved: number }) {
  for (let i = 0; i < 100; i++) {
    const counts = await couponCounts(couponId);
    if (JSON.stringify(counts) === JSON.stringify(expected)) return counts;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return couponCounts(couponId);
}

describe("a coupon issue in two steps", () => {
  it("hands out exactly `quantity` units to as many users racing for them, and lists no reservation after", async () => {
    const couponId = await newCoupon(10);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => issue(couponId, `racer-${i}`)));
    const accepted = outcomes.filter((outcome) => outcome.result === "accepted");
    expect(accepted).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome.result === "sold_out")).toHaveLength(30);
    expect(await settled(couponId, { issued: 10, holders: 10, reserved: 0 })).toEqual({
      issued: 10,
      holders: 10,
      reserved: 0,
    });
    // Each accepted issue is recorded in its user's slot: pending status and redemption record.
    for (const outcome of accepted) {
      if (outcome.result !== "accepted") continue;
      const partition = keys.partitionForOperation(outcome.id)!;
      expect(await redis.hget(keys.status(partition, outcome.id), "status")).toBe("pending");
      expect(await redis.hget(keys.couponIssue(partition, outcome.id), "couponId")).toBe(couponId);
    }
  });

  it("gives one user one unit however many requests they race, with or without one Idempotency-Key", async () => {
    const couponId = await newCoupon(5);
    const plain = await Promise.all(Array.from({ length: 6 }, () => issue(couponId, "eager")));
    expect(plain.filter((outcome) => outcome.result === "accepted")).toHaveLength(1);
    expect(plain.filter((outcome) => outcome.result === "already_issued")).toHaveLength(5);

    const keyed = await Promise.all(Array.from({ length: 6 }, () => issue(couponId, "keyed", "key-1")));
    const acceptedIds = keyed.flatMap((outcome) => (outcome.result === "accepted" ? [outcome.id] : []));
    expect(acceptedIds).toHaveLength(1);
    // The others learn of that issue: as a replay, or as "already issued" to it, never of another.
    for (const outcome of keyed) {
      if (outcome.result === "accepted") continue;
      if (outcome.result === "replayed") expect(outcome.id).toBe(acceptedIds[0]);
      else expect(outcome).toMatchObject({ result: "already_issued", existingId: acceptedIds[0] });
    }
    // A later retry with the key replays the accepted issue.
    expect(await issue(couponId, "keyed", "key-1")).toMatchObject({ result: "replayed", id: acceptedIds[0] });
    expect(await settled(couponId, { issued: 2, holders: 2, reserved: 0 })).toEqual({
      issued: 2,
      holders: 2,
      reserved: 0,
    });
  });

  it("records a sold-out refusal under the request's key, so a retry hears it again after units free up", async () => {
    const couponId = await newCoupon(1);
    expect((await issue(couponId, "first")).result).toBe("accepted");
    expect(await issue(couponId, "late", "late-key")).toMatchObject({ result: "sold_out", replayed: false });
    await redis.hset(keys.couponState(couponId), "quantity", 2);
    expect(await issue(couponId, "late", "late-key")).toMatchObject({ result: "sold_out", replayed: true });
    expect((await issue(couponId, "late", "another-key")).result).toBe("accepted");
  });

  it("gives the unit back at once when the user's side refuses (rate limited) after the coupon's side held it", async () => {
    const couponId = await newCoupon(3);
    const other = await newCoupon(3);
    const userId = "limited";
    const partition = keys.partitionForUser(userId);
    const bucket = `${env.config.redisPrefix}{p${partition}}:rl:test:u:${userId}`;
    const stream = keys.stream(partition);
    // One token, refilled once an hour: the first request takes it.
    const limited = {
      keys: [bucket, stream, stream],
      args: [3_600_000, 1, "0", userId, "", "", "0"],
    } as const;
    const send = (coupon: string) =>
      issueCouponInTwoSteps(
        redis,
        keys,
        messageFor(coupon, userId),
        DISCOUNT,
        limited,
        { fingerprint: "fp", ttlSeconds: 0 },
        NO_REPLICA_WAIT,
      );
    expect((await send(other)).result).toBe("accepted");
    expect(await send(couponId)).toMatchObject({ result: "rate_limited", scope: "user" });
    expect(await settled(couponId, { issued: 0, holders: 0, reserved: 0 })).toEqual({
      issued: 0,
      holders: 0,
      reserved: 0,
    });
  });

  it("refuses a commit later than the window after its reservation, writing nothing", async () => {
    const couponId = await newCoupon(3);
    const message = messageFor(couponId, "slow");
    const partition = keys.partitionForUser("slow");
    const { reservedAtMs } = await reserveCoupon.run(redis, {
      coupon: couponKeys(couponId),
      issueId: message.id,
      userId: message.userId,
    });
    expect(reservedAtMs).not.toBeNull();
    const { code } = await commitCouponIssue.run(redis, {
      record: {
        statusKey: keys.status(partition, message.id),
        streamKey: keys.stream(partition),
        redemptionKey: keys.couponIssue(partition, message.id),
        idempotencyKey: keys.idempotency(partition, "slow", ""),
        issueId: message.id,
        userId: message.userId,
        encodedMessage: "{}",
        couponId,
        discount: { type: "fixed", value: 500 },
        fingerprint: "fp",
        idempotencyTtlSeconds: 0,
      },
      reservedAtMs: reservedAtMs! - COMMIT_WINDOW_MS - 1000,
      commitWindowMs: COMMIT_WINDOW_MS,
    });
    expect(code).toBe(-101);
    expect(
      await redis.exists(keys.status(partition, message.id), keys.couponIssue(partition, message.id)),
    ).toBe(0);
  });
});

describe("the sweep of reservations never recorded", () => {
  it("releases a unit whose request was never recorded and strikes off one whose request was, once", async () => {
    const couponId = await newCoupon(5);
    const reservations = keys.couponReservations(couponId);
    // An intake died after the reservation: never recorded.
    const lost = messageFor(couponId, "orphan");
    await reserveCoupon.run(redis, { coupon: couponKeys(couponId), issueId: lost.id, userId: "orphan" });
    // An issue recorded whose ZREM was lost: put its reservation back on the list.
    const kept = await issue(couponId, "recorded");
    if (kept.result !== "accepted") throw new Error(`expected accepted, got ${kept.result}`);
    await settled(couponId, { issued: 2, holders: 2, reserved: 1 });
    await redis.zadd(reservations, Date.now(), `${kept.id} recorded`);

    // Younger than SWEEP_AFTER_MS: untouched (a commit may still be on its way).
    expect(await sweepCouponReservations(redis, keys, [couponId], Date.now())).toEqual({
      released: 0,
      confirmed: 0,
    });
    const later = Date.now() + SWEEP_AFTER_MS + 1000;
    expect(await sweepCouponReservations(redis, keys, [couponId], later)).toEqual({
      released: 1,
      confirmed: 1,
    });
    expect(await couponCounts(couponId)).toEqual({ issued: 1, holders: 1, reserved: 0 });
    expect(await redis.hget(keys.couponHolders(couponId), "recorded")).toBe(kept.id);
    // Again: nothing left to do.
    expect(await sweepCouponReservations(redis, keys, [couponId], later)).toEqual({
      released: 0,
      confirmed: 0,
    });
    // The orphan's user may have the unit now.
    expect((await issue(couponId, "orphan")).result).toBe("accepted");
  });
});
