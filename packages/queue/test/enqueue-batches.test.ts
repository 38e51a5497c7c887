// Payments sent in one turn of the event loop share one enqueue script call (enqueue-batches.ts), each with the
// answer it would have had alone. Against the real Redis: how many calls went out, what each request got, and
// what Redis holds after.

import { idempotentTail, type MoneyOperationMessage } from "@floodgate/domain";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  countScriptCalls,
  createTestEnvironment,
  type ScriptCalls,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AdmissionCheck,
  enqueueOperation,
  MAX_REQUESTS_PER_CALL,
  QueueKeys,
  unlimitedAdmission,
} from "../src/index.ts";
import { paymentMessage } from "./payment-messages.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let scriptCalls: ScriptCalls;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("enqueue-batches", { shards: 1 });
  redis = createRedis(env.config.redisUrl, { autoPipelining: true });
  await waitForRedis(redis);
  scriptCalls = countScriptCalls(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(() => {
  keys = new QueueKeys(`${env.config.redisPrefix}b${n++}:`, 4);
  scriptCalls.reset();
});

const payment = (userId: string, key?: string): MoneyOperationMessage =>
  paymentMessage(userId, { bucket: (n * 37 + userId.length) % 1024, ...(key === undefined ? {} : { key }) });

const enqueue = (
  message: MoneyOperationMessage,
  options: { key?: string; fingerprint?: string; admission?: AdmissionCheck } = {},
) =>
  enqueueOperation(redis, keys, {
    message,
    fingerprint: options.fingerprint ?? "fp-1",
    ...(options.key === undefined ? {} : { idempotencyKey: options.key }),
    idempotencyTtlSeconds: 86_400,
    admission: options.admission ?? unlimitedAdmission(keys, message.userId),
  });

/** A user bucket of one token a minute: the user's second request in a row is refused. */
const oneTokenAMinute = (userId: string): AdmissionCheck => {
  const placeholder = keys.stream(keys.partitionForUser(userId));
  return {
    keys: [
      `${keys.prefix}{p${keys.partitionForUser(userId)}}:rl:payments:u:${userId}`,
      placeholder,
      placeholder,
    ],
    args: [60_000, 1, "0", userId, "", "", "0"],
  };
};

const streamEntries = async () => {
  let total = 0;
  for (const stream of keys.allStreams()) total += await redis.xlen(stream);
  return total;
};

describe("enqueue batches", () => {
  it("sends the requests of one turn as one script call, each answered as if alone", async () => {
    const first = payment("batch-retry", "K1");
    const retry = payment("batch-retry", "K1");
    const conflicting = payment("batch-retry", "K1");
    const limitedFirst = payment("batch-limited");
    const limitedSecond = payment("batch-limited");
    const plain = Array.from({ length: 6 }, (_, i) => payment(`batch-user-${i}`));

    const answers = await Promise.all([
      enqueue(first, { key: "K1" }),
      ...plain.map((message) => enqueue(message)),
      enqueue(retry, { key: "K1" }),
      enqueue(conflicting, { key: "K1", fingerprint: "fp-other" }),
      enqueue(limitedFirst, { admission: oneTokenAMinute("batch-limited") }),
      enqueue(limitedSecond, { admission: oneTokenAMinute("batch-limited") }),
    ]);

    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({ result: "accepted", id: first.id });
    for (const [i, message] of plain.entries()) {
      expect(answers[1 + i]).toMatchObject({ result: "accepted", id: message.id });
    }
    // Behind its first request in the same call, the retry finds what the first stored.
    expect(answers[7]).toMatchObject({ result: "replayed", id: first.id });
    expect(answers[8]).toEqual({ result: "conflict", existingId: first.id });
    expect(answers[9]).toMatchObject({ result: "accepted", id: limitedFirst.id });
    expect(answers[10]).toMatchObject({ result: "rate_limited", scope: "user" });
    // The first, the six, the limited user's first: nothing else was appended.
    expect(await streamEntries()).toBe(8);
    expect(
      await redis.exists(keys.status(keys.partitionForOperation(limitedSecond.id)!, limitedSecond.id)),
    ).toBe(0);
  });

  it(`sends a full batch of ${MAX_REQUESTS_PER_CALL} at once and the rest at the end of the turn`, async () => {
    const count = MAX_REQUESTS_PER_CALL * 2 + 3;
    const messages = Array.from({ length: count }, (_, i) => payment(`full-${i}`));
    const answers = await Promise.all(messages.map((message) => enqueue(message)));
    expect(scriptCalls.count).toBe(3);
    expect(answers.map((answer) => answer.result)).toEqual(Array(count).fill("accepted"));
    expect(answers.map((answer) => ("id" in answer ? answer.id : null))).toEqual(messages.map((m) => m.id));
    expect(await streamEntries()).toBe(count);
  });

  it("sends requests that arrive in different turns in calls of their own", async () => {
    for (let i = 0; i < 3; i++) {
      expect(await enqueue(payment(`turn-${i}`))).toMatchObject({ result: "accepted" });
    }
    expect(scriptCalls.count).toBe(3);
  });

  it("answers a request whose part fails with its error alone, and the others of its call as ever", async () => {
    // A key of another type where a user's bucket belongs: that user's payment fails, not its neighbours'.
    const broken = oneTokenAMinute("isolated-broken");
    await redis.hset(broken.keys[0], "not", "a bucket");
    scriptCalls.reset();
    const messages = [payment("isolated-0"), payment("isolated-broken"), payment("isolated-2")];
    const answers = await Promise.allSettled([
      enqueue(messages[0]!),
      enqueue(messages[1]!, { admission: broken }),
      enqueue(messages[2]!),
    ]);
    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({
      status: "fulfilled",
      value: { result: "accepted", id: messages[0]!.id },
    });
    expect(answers[1]).toMatchObject({ status: "rejected" });
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/^ReplyError: WRONGTYPE/);
    expect(answers[2]).toMatchObject({
      status: "fulfilled",
      value: { result: "accepted", id: messages[2]!.id },
    });
    expect(await streamEntries()).toBe(2);
  });

  it("fails every request of a call that fails, and stores none of them", async () => {
    const closed = createRedis(env.config.redisUrl, { autoPipelining: true });
    await waitForRedis(closed);
    await closed.quit();
    const messages = [payment("failed-0"), payment("failed-1"), payment("failed-2")];
    const answers = await Promise.allSettled(
      messages.map((message) =>
        enqueueOperation(closed, keys, {
          message,
          fingerprint: "fp-1",
          idempotencyTtlSeconds: 0,
          admission: unlimitedAdmission(keys, message.userId),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await streamEntries()).toBe(0);
  });

  it("keeps the key's tail check: a keyed request minted without its tail is refused before anything is sent", async () => {
    const message = payment("untailed");
    await expect(enqueue(message, { key: "K9" })).rejects.toThrow(/idempotentTailOf/);
    expect(scriptCalls.count).toBe(0);
    expect(idempotentTail("user:untailed", "K9")).toHaveLength(14);
  });
});
