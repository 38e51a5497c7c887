// Dead-lettering on a real Redis Cluster (3 masters, 3 replicas; a private one): entries of several
// partitions, on different masters, are copied once to the `{dlq}` stream and then acknowledged and marked
// failed partition by partition, with no call across slots; a second copy (the worker stopped between the two
// steps) is settled with the first by the dlq's settle, and a replay appends the message once; what the
// previous release left in the untagged stream moves over. The worker's reader is left out: the entries are
// read here, per partition.
import { encodeOperationMessage, newOperationId } from "@floodgate/domain";
import {
  adoptLegacyDeadLetters,
  CONSUMER_GROUP,
  ensureConsumerGroups,
  findDeadLetters,
  legacyDeadLetterStream,
  QueueKeys,
  readDeadLetters,
  type StreamEntry,
  settleDeadLetter,
} from "@floodgate/queue";
import {
  createRedis,
  createSubscriber,
  type RedisConnection,
  type ScriptedRedis,
  waitForRedis,
} from "@floodgate/redis-connections";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadLetter, type Poisoned } from "../src/dead-letter.ts";
import { waitFor } from "./support/wait-for.ts";

const MAX_DELIVERIES = 3;
const FIRST_FAILED_AT = "1700000000123";
let cluster: RedisCluster;
let redis: ScriptedRedis;
let subscriber: RedisConnection;
const published: string[] = [];
const keys = new QueueKeys("fgt:dlq-cluster:", 16);

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = createRedis(cluster.url, { name: "dead-letter-cluster" });
  await waitForRedis(redis);
  await ensureConsumerGroups(redis, keys);
  subscriber = createSubscriber(cluster.url, "dead-letter-cluster-statuses");
  subscriber.on("message", (_, message: string) => {
    for (const change of JSON.parse(message) as { id: string }[]) published.push(change.id);
  });
  await subscriber.subscribe(keys.statusChannel());
}, 60_000);

afterAll(async () => {
  subscriber?.disconnect();
  redis?.disconnect();
  await cluster?.stop();
});

/** Which master serves a key, asked of the cluster itself. */
async function masterOf(key: string): Promise<number> {
  const slot = (await redis.cluster("KEYSLOT", key)) as number;
  const ranges = await redis.cluster("SLOTS");
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range?.[2]) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

/** A payment appended to its partition stream as the intake would (status pending), in bucket `bucket`. */
async function accept(bucket: number): Promise<string> {
  const id = newOperationId("payment", bucket);
  const partition = keys.partitionForOperation(id)!;
  const message = encodeOperationMessage({
    v: 1,
    kind: "payment",
    id,
    userId: `cluster-user-${bucket}`,
    amount: 10,
    currency: "KRW",
    createdAt: Date.now(),
  });
  // The pending status as the intake writes it (enqueue-operations-n.lua): its id beside the message.
  await redis.hset(keys.status(partition, id), "status", "pending", "id", id, "message", message);
  await redis.xadd(keys.stream(partition), "*", "id", id, "m", message);
  return id;
}

/** Delivers a partition's new entries to a consumer (as the worker's per-partition read would). */
async function read(partition: number): Promise<StreamEntry[]> {
  const reply = (await redis.xreadgroup(
    "GROUP",
    CONSUMER_GROUP,
    "cluster-consumer",
    "COUNT",
    100,
    "STREAMS",
    keys.stream(partition),
    ">",
  )) as [string, [string, string[]][]][] | null;
  return (reply?.[0]?.[1] ?? []).map(([entryId, fields]) => ({
    partition,
    entryId,
    operationId: fields[fields.indexOf("id") + 1]!,
    payload: fields[fields.indexOf("m") + 1]!,
    deliveries: MAX_DELIVERIES,
  }));
}

const pending = async (partition: number) =>
  ((await redis.xpending(keys.stream(partition), CONSUMER_GROUP)) as [number, ...unknown[]])[0];

describe("dead-lettering on a cluster", () => {
  const ids: string[] = [];
  let poisoned: Poisoned[] = [];

  beforeAll(async () => {
    // Partitions 0..3 (their tags sit on different masters) and a second entry in partition 2.
    for (const bucket of [0, 1, 2, 3, 2]) ids.push(await accept(bucket));
    for (const id of ids.slice(0, 2)) {
      await redis.set(keys.firstFailure(keys.partitionForOperation(id)!, id), FIRST_FAILED_AT);
    }
    const entries = (await Promise.all([0, 1, 2, 3].map(read))).flat();
    poisoned = entries.map((entry) => ({ entry, reason: `refused ${entry.operationId}` }));
    await deadLetter(redis, keys, poisoned, 600);
  });

  it("spans masters (the test's own premise)", async () => {
    const masters = new Set(await Promise.all([0, 1, 2, 3].map((p) => masterOf(keys.stream(p)))));
    expect(masters.size).toBeGreaterThan(1);
    expect(poisoned).toHaveLength(5);
    expect(keys.deadLetters()).toBe("fgt:dlq-cluster:{dlq}:dead-letters");
  });

  it("copies each entry once to the {dlq} stream, with its reason, delivery count and first failure", async () => {
    const letters = [];
    for await (const letter of readDeadLetters(redis, keys)) letters.push(letter);
    expect(letters.map((letter) => letter.operationId).sort()).toEqual([...ids].sort());
    for (const { entry, reason } of poisoned) {
      const letter = letters.find((l) => l.operationId === entry.operationId)!;
      expect(letter).toMatchObject({
        partition: entry.partition,
        entryId: entry.entryId,
        deliveries: MAX_DELIVERIES,
        reason,
        message: entry.payload,
      });
    }
    for (const id of ids.slice(0, 2)) {
      expect(letters.find((l) => l.operationId === id)!.firstFailedAt).toBe(Number(FIRST_FAILED_AT));
    }
    for (const id of ids.slice(2)) {
      expect(letters.find((l) => l.operationId === id)!.firstFailedAt).toBeGreaterThan(
        Number(FIRST_FAILED_AT),
      );
    }
  });

  it("acknowledges every entry in its partition, marks it failed and deletes its first-failure key", async () => {
    for (const partition of [0, 1, 2, 3]) expect(await pending(partition)).toBe(0);
    for (const id of ids) {
      const partition = keys.partitionForOperation(id)!;
      expect(await redis.hgetall(keys.status(partition, id))).toMatchObject({
        status: "failed",
        failureReason: "dead_lettered",
      });
      expect(await redis.ttl(keys.status(partition, id))).toBeGreaterThan(0);
      expect(await redis.exists(keys.firstFailure(partition, id))).toBe(0);
    }
  });

  it("publishes each failed status (one publish per partition reaches the subscriber on any node)", async () => {
    await waitFor(() => ids.every((id) => published.includes(id)), "every status published");
  });

  it("settles a second copy with the first: a replay appends the message once, the copy is dropped", async () => {
    // The worker stopped after the copy and before the acknowledgement: the entry came back and was
    // dead-lettered again.
    const again = await accept(5);
    const first = await read(5);
    await deadLetter(redis, keys, [{ entry: first[0]!, reason: "refused" }], 600);
    await redis.xadd(
      keys.deadLetters(),
      "*",
      "id",
      again,
      "partition",
      5,
      "entryId",
      first[0]!.entryId,
      "deliveries",
      MAX_DELIVERIES,
      "reason",
      "refused",
      "m",
      first[0]!.payload,
    );
    const copies = await findDeadLetters(redis, keys, again);
    expect(copies).toHaveLength(2);
    const entriesBefore = await redis.xlen(keys.stream(5));
    const replayed = await settleDeadLetter(redis, keys, copies[0]!, "replay");
    expect(replayed.result).toBe("replayed");
    expect(await settleDeadLetter(redis, keys, copies[1]!, "drop")).toEqual({ result: "dropped" });
    // Settling the first copy again (a stale listing) is refused by its claim: nothing appended twice.
    expect(await settleDeadLetter(redis, keys, copies[0]!, "replay")).toEqual({
      result: "already",
      action: "replay",
    });
    expect(await redis.xlen(keys.stream(5))).toBe(entriesBefore + 1);
    expect(await findDeadLetters(redis, keys, again)).toEqual([]);
    expect(await redis.hget(keys.status(5, again), "status")).toBe("pending");
  });

  it("moves what the previous release left in the untagged stream (entry by entry: another slot)", async () => {
    const legacy = legacyDeadLetterStream(keys);
    await redis.xadd(legacy, "1000-0", "id", "pay_legacy_a", "partition", "1", "m", "{}");
    await redis.xadd(legacy, "2000-0", "id", "pay_legacy_b", "partition", "2", "m", "{}");
    expect(await adoptLegacyDeadLetters(redis, keys)).toBe(2);
    expect(await redis.xlen(legacy)).toBe(0);
    const moved = [
      ...(await findDeadLetters(redis, keys, "pay_legacy_a")),
      ...(await findDeadLetters(redis, keys, "pay_legacy_b")),
    ];
    expect(moved.map((letter) => [letter.operationId, letter.deadLetteredAt])).toEqual([
      ["pay_legacy_a", 1000],
      ["pay_legacy_b", 2000],
    ]);
  });
});
