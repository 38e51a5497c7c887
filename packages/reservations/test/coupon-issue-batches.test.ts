// Coupon issues sent in one turn of the event loop share one issue-coupon-n.lua call on one Redis (turn-batches.ts
// in @floodgate/redis-scripts), each with the answer it would have had alone, in the order they were sent.
// Against the real Redis: how many calls went out, what each request got, and what Redis holds after.
import type { CouponIssueMessage } from "@floodgate/domain";
import { type AdmissionCheck, QueueKeys, unlimitedAdmission } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { MAX_REQUESTS_PER_CALL } from "@floodgate/redis-scripts";
import {
  countScriptCalls,
  createTestEnvironment,
  type ScriptCalls,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { issueCoupon, writeCouponState } from "../src/index.ts";
import { couponIssueMessage } from "./support/reservation-requests.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let scriptCalls: ScriptCalls;
let couponCount = 0;

beforeAll(async () => {
  env = await createTestEnvironment("coupon-issue-batches", { shards: 1 });
  redis = createRedis(env.config.redisUrl, { autoPipelining: true });
  await waitForRedis(redis);
  scriptCalls = countScriptCalls(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(() => {
  scriptCalls.reset();
});

async function newCoupon(quantity: number): Promise<string> {
  const id = `cpn_batched${String(couponCount++).padStart(18, "0")}`;
  await writeCouponState(redis, keys, { id, quantity, startsAt: null, endsAt: null });
  scriptCalls.reset();
  return id;
}

const messageFor = couponIssueMessage;

/** A user bucket of one token a minute: the user's second request in a row is refused. */
const oneTokenAMinute = (userId: string): AdmissionCheck => {
  const placeholder = keys.stream(keys.partitionForUser(userId));
  return {
    keys: [
      `${keys.prefix}{p${keys.partitionForUser(userId)}}:rl:coupon-issues:u:${userId}`,
      placeholder,
      placeholder,
    ],
    args: [60_000, 1, "0", userId, "", "", "0"],
  };
};

const issue = (
  couponId: string,
  userId: string,
  options: {
    key?: string;
    fingerprint?: string;
    admission?: AdmissionCheck;
    message?: CouponIssueMessage;
  } = {},
) =>
  issueCoupon(
    redis,
    keys,
    options.message ?? messageFor(couponId, userId),
    { type: "percent", value: 10 },
    options.admission ?? unlimitedAdmission(keys, userId),
    {
      ...(options.key === undefined ? {} : { key: options.key }),
      fingerprint: options.fingerprint ?? `fp-${couponId}-${userId}`,
      ttlSeconds: options.key === undefined ? 0 : 600,
    },
  );

const holders = (couponId: string) => redis.hgetall(keys.couponHolders(couponId));
const issued = async (couponId: string) => Number(await redis.hget(keys.couponState(couponId), "issued"));

describe("coupon issue batches", () => {
  it("sends the issues of one turn as one script call, each answered as if alone and in order", async () => {
    const couponId = await newCoupon(3);
    const keyed = messageFor(couponId, "u-keyed");
    const answers = await Promise.all([
      issue(couponId, "u-keyed", { key: "K1", message: keyed }),
      issue(couponId, "u-keyed", { key: "K1" }), // its retry, behind it in the same call
      issue(couponId, "u-keyed", { key: "K1", fingerprint: "fp-other" }), // the key reused for another body
      issue(couponId, "u-twice"),
      issue(couponId, "u-twice"), // the same user again: already holds it
      issue(couponId, "u-limited", { admission: oneTokenAMinute("u-limited") }),
      issue(couponId, "u-limited", { admission: oneTokenAMinute("u-limited") }),
      issue(couponId, "u-late"), // the fourth user: the third coupon went to u-limited
    ]);

    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({ result: "accepted", id: keyed.id });
    expect(answers[1]).toMatchObject({ result: "replayed", id: keyed.id });
    expect(answers[2]).toEqual({ result: "conflict", existingId: keyed.id });
    expect(answers[3]).toMatchObject({ result: "accepted" });
    expect(answers[4]).toMatchObject({
      result: "already_issued",
      existingId: (answers[3] as { id: string }).id,
    });
    expect(answers[5]).toMatchObject({ result: "accepted" });
    expect(answers[6]).toMatchObject({ result: "rate_limited", scope: "user" });
    expect(answers[7]).toMatchObject({ result: "sold_out", replayed: false });

    expect(await issued(couponId)).toBe(3);
    expect(Object.keys(await holders(couponId)).sort()).toEqual(["u-keyed", "u-limited", "u-twice"]);
  });

  it(`sends a full batch of ${MAX_REQUESTS_PER_CALL} at once and the rest at the end of the turn`, async () => {
    const count = MAX_REQUESTS_PER_CALL * 2 + 3;
    const quantity = MAX_REQUESTS_PER_CALL + 5;
    const couponId = await newCoupon(quantity);
    const users = Array.from({ length: count }, (_, i) => `full-${i}`);
    const answers = await Promise.all(users.map((user) => issue(couponId, user)));
    expect(scriptCalls.count).toBe(3);
    // First come, first served in the order sent, across the calls.
    expect(answers.map((answer) => answer.result)).toEqual([
      ...Array(quantity).fill("accepted"),
      ...Array(count - quantity).fill("sold_out"),
    ]);
    expect(Object.keys(await holders(couponId)).sort()).toEqual(users.slice(0, quantity).sort());
  });

  it("sends issues that arrive in different turns in calls of their own", async () => {
    const couponId = await newCoupon(10);
    for (let i = 0; i < 3; i++) {
      expect(await issue(couponId, `turn-${i}`)).toMatchObject({ result: "accepted" });
    }
    expect(scriptCalls.count).toBe(3);
  });

  it("answers an issue whose part fails with its error alone, and the others of its call as ever", async () => {
    const couponId = await newCoupon(10);
    // A key of another type where the coupon's holders belong: that coupon's issues fail, not their neighbours'.
    const broken = await newCoupon(10);
    await redis.set(keys.couponHolders(broken), "not a hash");
    scriptCalls.reset();
    const answers = await Promise.allSettled([
      issue(couponId, "isolated-0"),
      issue(broken, "isolated-1"),
      issue(couponId, "isolated-2"),
    ]);
    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({ status: "fulfilled", value: { result: "accepted" } });
    expect(answers[1]).toMatchObject({ status: "rejected" });
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/^ReplyError: WRONGTYPE/);
    expect(answers[2]).toMatchObject({ status: "fulfilled", value: { result: "accepted" } });
    expect(Object.keys(await holders(couponId)).sort()).toEqual(["isolated-0", "isolated-2"]);
  });

  it("fails every issue of a call that fails, and takes no coupon for any of them", async () => {
    const couponId = await newCoupon(10);
    const closed = createRedis(env.config.redisUrl, { autoPipelining: true });
    await waitForRedis(closed);
    await closed.quit();
    const answers = await Promise.allSettled(
      ["failed-0", "failed-1", "failed-2"].map((user) =>
        issueCoupon(
          closed,
          keys,
          messageFor(couponId, user),
          { type: "percent", value: 10 },
          unlimitedAdmission(keys, user),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await issued(couponId)).toBe(0);
    expect(await holders(couponId)).toEqual({});
  });

  it("refuses a call whose keys are not whole requests, before any of them runs", async () => {
    const couponId = await newCoupon(10);
    const raw = redis as unknown as { issueCoupon(...argv: (string | number)[]): Promise<unknown> };
    await expect(raw.issueCoupon(1, keys.couponState(couponId), "x")).rejects.toThrow(
      /issue-coupon-n: 1 keys and 1 arguments are not whole requests of 9 and 15/,
    );
    expect(await issued(couponId)).toBe(0);
  });
});
