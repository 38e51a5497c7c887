// One key per payment: a payment's (deposit's, refund's) status hash is named by its id's bucket and tail, and
// with an Idempotency-Key it is also the key's record. Against the real Redis: what enqueue writes, what finish
// does to it, a made-up id of the same tail, and an operation accepted before the upgrade.

import {
  encodeOperationMessage,
  idempotentTail,
  type MoneyOperationMessage,
  newOperationId,
} from "@floodgate/domain";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AdmissionCheck,
  enqueueOperation,
  ensureConsumerGroups,
  finishOperations,
  idempotentTailOf,
  QueueKeys,
  readNewEntries,
  readOperationStatus,
  unlimitedAdmission,
} from "../src/index.ts";
import { paymentMessage } from "./payment-messages.ts";

const STATUS_TTL = 60;
const IDEMPOTENCY_TTL = 86_400;

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("tail-keyed-statuses", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(async () => {
  keys = new QueueKeys(`${env.config.redisPrefix}t${n++}:`, 1);
  await ensureConsumerGroups(redis, keys);
});

const payment = (userId: string, key?: string, createdAt = Date.now()): MoneyOperationMessage =>
  paymentMessage(userId, { bucket: 7, createdAt, ...(key === undefined ? {} : { key }) });

const enqueue = (
  message: MoneyOperationMessage,
  key?: string,
  fingerprint: string | (() => string) = "fp-1",
) =>
  enqueueOperation(redis, keys, {
    message,
    fingerprint,
    ...(key === undefined ? {} : { idempotencyKey: key }),
    idempotencyTtlSeconds: IDEMPOTENCY_TTL,
    admission: unlimitedAdmission(keys, message.userId),
  });

/** Keys under this test's prefix (DBSIZE would count the other test files' keys too: they run alongside). */
const keysOfThisTest = async () => {
  let count = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${keys.prefix}*`, "COUNT", 1000);
    cursor = next;
    count += found.length;
  } while (cursor !== "0");
  return count;
};

const finishAll = async () => {
  const read = await readNewEntries(redis, keys, "finisher", 100);
  const statuses = read.map((entry) => ({
    id: entry.operationId,
    status: "succeeded" as const,
    completedAt: 1_700_000_000_000,
  }));
  await finishOperations(
    redis,
    keys,
    { statuses, acknowledged: read },
    { statusTtlSeconds: STATUS_TTL, idempotencyTtlSeconds: IDEMPOTENCY_TTL },
  );
};

describe("tail-keyed statuses", () => {
  it("keeps a keyed payment in one key: its status is its key's record, and a retry is answered from it", async () => {
    const before = await keysOfThisTest();
    const first = payment("tail-1", "K1");
    expect(await enqueue(first, "K1")).toMatchObject({ result: "accepted", id: first.id });
    // The stream and the one status hash: no second key for the Idempotency-Key.
    expect(await redis.exists(keys.status(0, first.id))).toBe(1);
    expect((await keysOfThisTest()) - before).toBe(1);

    // A retry a moment later mints another id of the same tail, and gets the first one back.
    const retry = payment("tail-1", "K1", first.createdAt + 1000);
    expect(retry.id).not.toBe(first.id);
    expect(await enqueue(retry, "K1")).toMatchObject({ result: "replayed", id: first.id });
    expect(await enqueue(payment("tail-1", "K1"), "K1", "fp-other")).toEqual({
      result: "conflict",
      existingId: first.id,
    });

    await finishAll();
    // Final: kept as long as the key's record must be, not just STATUS_TTL_SECONDS.
    expect(await redis.ttl(keys.status(0, first.id))).toBeGreaterThan(STATUS_TTL);
    expect(await enqueue(payment("tail-1", "K1"), "K1")).toMatchObject({ result: "replayed", id: first.id });
    expect(await readOperationStatus(redis, keys, first.id)).toMatchObject({
      id: first.id,
      status: "succeeded",
      userId: "tail-1",
      amount: 500,
      createdAt: new Date(first.createdAt).toISOString(),
    });
  });

  it("gives an unkeyed payment's final status STATUS_TTL_SECONDS", async () => {
    const message = payment("tail-2");
    expect(await enqueue(message)).toMatchObject({ result: "accepted" });
    expect(await redis.ttl(keys.status(0, message.id))).toBe(-1);
    await finishAll();
    const ttl = await redis.ttl(keys.status(0, message.id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(STATUS_TTL);
  });

  it("does not show a payment under a made-up id of the same tail", async () => {
    const message = payment("tail-3", "K3");
    await enqueue(message, "K3");
    const madeUp = newOperationId("payment", 7, message.createdAt - 5000, message.id.slice(16));
    expect(keys.status(0, madeUp)).toBe(keys.status(0, message.id));
    expect(await readOperationStatus(redis, keys, madeUp)).toBeNull();
    expect(await readOperationStatus(redis, keys, message.id)).toMatchObject({ id: message.id });
  });

  it("finishes and reads a payment accepted before the upgrade where its pending status was", async () => {
    // What the release before wrote: the whole message, at {p}:op:<id>, with a random tail.
    const message = payment("tail-4");
    const former = keys.formerStatus(0, message.id);
    await redis.hset(former, "status", "pending", "message", encodeOperationMessage(message));
    await redis.xadd(keys.stream(0), "*", "id", message.id, "m", encodeOperationMessage(message));
    expect(await readOperationStatus(redis, keys, message.id)).toMatchObject({ status: "pending" });

    await finishAll();
    expect(await redis.exists(keys.status(0, message.id))).toBe(0);
    expect(await redis.hget(former, "status")).toBe("succeeded");
    expect(await redis.ttl(former)).toBeGreaterThan(0);
    expect(await readOperationStatus(redis, keys, message.id)).toMatchObject({
      id: message.id,
      status: "succeeded",
    });
  });

  it("answers a retry of a payment whose key the release before recorded on its own", async () => {
    const message = payment("tail-5");
    const legacyKey = keys.idempotency(0, "tail-5", "K5");
    await redis.set(legacyKey, `fp-1 ${message.id}`, "EX", 60);
    const retry = payment("tail-5", "K5");
    expect(await enqueue(retry, "K5")).toMatchObject({ result: "replayed", id: message.id });
    expect(await enqueue(retry, "K5", "fp-other")).toEqual({ result: "conflict", existingId: message.id });
    expect(await redis.exists(keys.status(0, retry.id))).toBe(0);
  });

  it("answers a retry sent without its hash from the first request's body and kind", async () => {
    let hashed = 0;
    const hash = () => {
      hashed++;
      return "fp-1";
    };
    const first = payment("tail-6", "K6");
    expect(await enqueue(first, "K6", hash)).toMatchObject({ result: "accepted", id: first.id });
    // Still marked as a key's record, with nothing to compare but the body.
    expect(await redis.hget(keys.status(0, first.id), "fp")).toBe("");

    const retry = payment("tail-6", "K6", first.createdAt + 1000);
    expect(await enqueue(retry, "K6", hash)).toMatchObject({ result: "replayed", id: first.id });
    // Another amount under the same key, and a deposit (a user's payments and deposits share their keys).
    expect(await enqueue({ ...retry, amount: 501 }, "K6", hash)).toEqual({
      result: "conflict",
      existingId: first.id,
    });
    const deposit: MoneyOperationMessage = {
      ...retry,
      kind: "deposit",
      id: newOperationId("deposit", 7, retry.createdAt, idempotentTailOf("deposit", "tail-6", "K6")),
    };
    expect(await enqueue(deposit, "K6", hash)).toEqual({ result: "conflict", existingId: first.id });
    expect(hashed).toBe(0);
    expect(await redis.xlen(keys.stream(0))).toBe(1);

    await finishAll();
    expect(await redis.ttl(keys.status(0, first.id))).toBeGreaterThan(STATUS_TTL);
    expect(await enqueue(payment("tail-6", "K6"), "K6", hash)).toMatchObject({
      result: "replayed",
      id: first.id,
    });
  });

  it("compares by body a retry without its hash whose first request stored one", async () => {
    // What the release before this one stored: the fingerprint's first 22 characters.
    const first = payment("tail-7", "K7");
    expect(await enqueue(first, "K7", "fingerprint-of-the-first-one")).toMatchObject({ result: "accepted" });
    const unused = () => {
      throw new Error("the body answers this retry");
    };
    expect(await enqueue(payment("tail-7", "K7"), "K7", unused)).toMatchObject({
      result: "replayed",
      id: first.id,
    });
    expect(await enqueue({ ...payment("tail-7", "K7"), amount: 1 }, "K7", unused)).toEqual({
      result: "conflict",
      existingId: first.id,
    });
  });

  it("hashes a request sent without its hash when its key has a record of its own, and sends it again", async () => {
    const message = payment("tail-8");
    await redis.set(keys.idempotency(0, "tail-8", "K8"), `fp-1 ${message.id}`, "EX", 60);
    let hashed = 0;
    const retry = payment("tail-8", "K8");
    expect(
      await enqueue(retry, "K8", () => {
        hashed++;
        return "fp-1";
      }),
    ).toMatchObject({ result: "replayed", id: message.id });
    expect(hashed).toBe(1);
    expect(await enqueue(retry, "K8", () => "fp-other")).toEqual({
      result: "conflict",
      existingId: message.id,
    });
    expect(await redis.exists(keys.status(0, retry.id))).toBe(0);
    expect(await redis.xlen(keys.stream(0))).toBe(0);
  });

  it("takes the user's rate-limit token once for a request sent again with its hash", async () => {
    // A bucket of one token: the request asked for its hash must not spend it before it is sent again.
    const message = payment("tail-11");
    await redis.set(keys.idempotency(0, "tail-11", "K11"), `fp-1 ${message.id}`, "EX", 60);
    const bucket = `${keys.stream(0)}:rl:tail-11`;
    const oneToken = (userId: string): AdmissionCheck => ({
      keys: [bucket, keys.stream(0), keys.stream(0)],
      args: [60_000, 1, "0", userId, "", "", "0"],
    });
    const send = (retry: MoneyOperationMessage, fingerprint: () => string) =>
      enqueueOperation(redis, keys, {
        message: retry,
        fingerprint,
        idempotencyKey: "K11",
        idempotencyTtlSeconds: IDEMPOTENCY_TTL,
        admission: oneToken(retry.userId),
      });
    expect(await send(payment("tail-11", "K11"), () => "fp-1")).toMatchObject({
      result: "replayed",
      id: message.id,
      admission: { user: { remaining: 0 } },
    });
    // The token is gone now: the next request is refused by its limit, before anything else.
    expect(await send(payment("tail-11", "K11"), () => "fp-1")).toMatchObject({ result: "rate_limited" });
  });

  it("compares by body a retry that brings its hash to a record stored without one", async () => {
    // A record of an intake that waits for no replica, retried at one that does (it sends the hash up front).
    const first = payment("tail-9", "K9");
    expect(await enqueue(first, "K9", () => "fp-9")).toMatchObject({ result: "accepted" });
    expect(await enqueue(payment("tail-9", "K9"), "K9", "fp-9")).toMatchObject({
      result: "replayed",
      id: first.id,
    });
    expect(await enqueue({ ...payment("tail-9", "K9"), amount: 9 }, "K9", "fp-other")).toEqual({
      result: "conflict",
      existingId: first.id,
    });
  });

  it("answers a hashless request whose key's own record is a refusal as a conflict, once hashed", async () => {
    // An order refused under this key (out of stock, say): a payment with the same key is another request.
    await redis.set(keys.idempotency(0, "tail-10", "K10"), "fp-order !-3 out_of_stock", "EX", 60);
    const retry = payment("tail-10", "K10");
    expect(await enqueue(retry, "K10", () => "fp-payment")).toEqual({ result: "conflict", existingId: "" });
    expect(await redis.exists(keys.status(0, retry.id))).toBe(0);
  });

  it("refuses a fingerprint given as a function for a message whose body is not its fingerprint", async () => {
    const message = { ...payment("tail-11", "K11"), kind: "refund" } as unknown as MoneyOperationMessage;
    await expect(enqueue(message, "K11", () => "fp")).rejects.toThrow("fingerprint is its hash");
    expect(await redis.xlen(keys.stream(0))).toBe(0);
  });

  it("gives each scope its own tail", () => {
    expect(idempotentTail("user:a", "k")).toMatch(/^[0-9A-HJKMNP-TV-Z]{14}$/);
    expect(idempotentTail("user:a", "k")).toBe(idempotentTail("user:a", "k"));
    expect(idempotentTail("user:a", "k")).not.toBe(idempotentTail("user:b", "k"));
    expect(idempotentTailOf("payment", "a", "k")).toBe(idempotentTailOf("deposit", "a", "k"));
    expect(idempotentTailOf("refund", "a", "k")).not.toBe(idempotentTailOf("payment", "a", "k"));
  });
});
