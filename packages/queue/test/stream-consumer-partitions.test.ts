// A worker's stream commands over every partition, on one Redis and on a real Redis Cluster (3 masters, 3
// replicas, private ports): entries XADDed to every partition are read (each partition in stream order),
// claimed from a consumer that died, kept claimed, finished (statuses, XACK, then the publish) and trimmed once
// acknowledged. On the cluster the partitions' streams sit on different masters, so a command that named two
// partitions would be refused (CROSSSLOT): these pass only if every command stays in one partition's slot.
import { newOperationId } from "@floodgate/domain";
import {
  createRedis,
  createSubscriber,
  type RedisConnection,
  type ScriptedRedis,
  waitForRedis,
} from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisCluster,
  startRedisCluster,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CONSUMER_GROUP,
  claimStaleEntries,
  ensureConsumerGroups,
  type FinalStatus,
  finishOperations,
  isMissingGroup,
  keepEntriesClaimed,
  PartialReadError,
  PartitionBackoff,
  QueueKeys,
  readNewEntries,
  type StreamEntry,
  trimAcknowledgedEntries,
} from "../src/index.ts";

const PARTITIONS = 16;
const PER_PARTITION = 3;
const STALE_MS = 60_000; // entries are made stale by setting their idle time (XCLAIM IDLE), not by waiting

let env: TestEnvironment;
let cluster: RedisCluster;
const opened: RedisConnection[] = [];

beforeAll(async () => {
  [env, cluster] = await Promise.all([
    createTestEnvironment("stream-partitions", { shards: 1 }),
    startRedisCluster({ masters: 3, replicasPerMaster: 1 }),
  ]);
}, 60_000);

afterAll(async () => {
  for (const connection of opened) connection.disconnect();
  await cluster?.stop();
  await env?.cleanup();
});

interface Target {
  name: string;
  url: () => string;
  prefix: () => string;
}

const targets: Target[] = [
  { name: "one Redis", url: () => env.config.redisUrl, prefix: () => env.config.redisPrefix },
  { name: "a Redis Cluster", url: () => cluster.url, prefix: () => "fgt:partitions:" },
];

describe.each(targets)("on $name", (target) => {
  let redis: ScriptedRedis;
  /** The worker's reader: blocking on one Redis, a plain connection on a cluster (apps/worker entry-reader.ts). */
  let reader: ScriptedRedis;
  let keys: QueueKeys;
  let n = 0;

  beforeAll(async () => {
    redis = createRedis(target.url(), { name: "partitions-test" });
    const isCluster = target.url().startsWith("redis+cluster://");
    reader = createRedis(target.url(), {
      name: "partitions-test-reader",
      ...(isCluster ? {} : { blocking: true }),
    });
    opened.push(redis, reader);
    await Promise.all([waitForRedis(redis), waitForRedis(reader)]);
  });

  beforeEach(async () => {
    keys = new QueueKeys(`${target.prefix()}t${n++}:`, PARTITIONS);
    await ensureConsumerGroups(redis, keys);
  });

  /** PER_PARTITION entries in every partition; their ids by partition, in stream order. */
  const appendEverywhere = async () => {
    const ids: string[][] = [];
    for (let partition = 0; partition < PARTITIONS; partition++) {
      ids[partition] = [];
      for (let i = 0; i < PER_PARTITION; i++) {
        const operationId = newOperationId("payment", partition);
        const entryId = await redis.xadd(keys.stream(partition), "*", "id", operationId, "m", "{}");
        ids[partition]!.push(entryId!);
      }
    }
    return ids;
  };
  const byPartition = (entries: StreamEntry[]) => {
    const ids: string[][] = Array.from({ length: PARTITIONS }, () => []);
    for (const entry of entries) ids[entry.partition]!.push(entry.entryId);
    return ids;
  };
  const pendingOf = async (partition: number) =>
    (
      (await redis.xpending(keys.stream(partition), CONSUMER_GROUP, "-", "+", 1000)) as [
        string,
        string,
        number,
        number,
      ][]
    ).map(([entryId, consumer, , deliveries]) => ({ entryId, consumer, deliveries }));
  const makeStale = async (consumer: string, entries: StreamEntry[]) => {
    for (const entry of entries) {
      await redis.xclaim(
        keys.stream(entry.partition),
        CONSUMER_GROUP,
        consumer,
        0,
        entry.entryId,
        "IDLE",
        STALE_MS * 10,
        "JUSTID",
      );
    }
  };

  it("reads the entries of every partition, each partition in stream order, and each once", async () => {
    const ids = await appendEverywhere();

    const read = await readNewEntries(reader, keys, "reader-1", 10, 20);

    expect(byPartition(read)).toEqual(ids);
    expect(read.every((entry) => entry.deliveries === 1 && entry.operationId.startsWith("pay_"))).toBe(true);
    expect(await readNewEntries(reader, keys, "reader-2", 10)).toEqual([]);
    expect(await readNewEntries(reader, keys, "reader-2", 10, 20)).toEqual([]);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      expect((await pendingOf(partition)).map((p) => p.consumer)).toEqual(
        ids[partition]!.map(() => "reader-1"),
      );
    }
  });

  it("takes at most COUNT per partition in one read, and the rest in the next", async () => {
    const ids = await appendEverywhere();

    const first = await readNewEntries(reader, keys, "reader", 2);
    const second = await readNewEntries(reader, keys, "reader", 2);

    expect(byPartition(first)).toEqual(ids.map((inPartition) => inPartition.slice(0, 2)));
    expect(byPartition(second)).toEqual(ids.map((inPartition) => inPartition.slice(2)));
  });

  it("claims a dead consumer's entries in every partition, and keeps a live one's claimed", async () => {
    const ids = await appendEverywhere();
    const dead = await readNewEntries(reader, keys, "dead", 10);
    await makeStale("dead", dead);

    const claimed = await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100);

    expect(byPartition(claimed)).toEqual(ids);
    expect(claimed.every((entry) => entry.deliveries === 2)).toBe(true);

    // The claimer holds them for a shard that is down: made stale again, but kept claimed.
    await makeStale("claimer", claimed);
    await keepEntriesClaimed(redis, keys, "claimer", claimed);
    expect(await claimStaleEntries(redis, keys, "other", STALE_MS, 100)).toEqual([]);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const pending = await pendingOf(partition);
      expect(pending.map((p) => [p.consumer, p.deliveries])).toEqual(
        ids[partition]!.map(() => ["claimer", 2]),
      );
    }
  });

  it("finishes every partition's operations, publishes after, and trims what was acknowledged", async () => {
    const ids = await appendEverywhere();
    const read = await readNewEntries(reader, keys, "finisher", 2); // the last entry of each stays undelivered
    const statuses: FinalStatus[] = read.map((entry) => ({
      id: entry.operationId,
      status: "succeeded",
      completedAt: 1_700_000_000_000,
    }));
    for (const { id } of statuses) {
      const partition = keys.partitionForOperation(id)!;
      await redis.hset(keys.status(partition, id), "status", "pending", "id", id, "message", "{}");
    }
    const subscriber = createSubscriber(target.url(), "partitions-test-subscriber");
    opened.push(subscriber);
    // Each status as the subscriber finds it when it hears the publish: already final.
    const heard = new Promise<string[]>((resolve) =>
      subscriber.on("message", async (_, message: string) => {
        const changed = JSON.parse(message) as FinalStatus[];
        resolve(
          (await Promise.all(
            changed.map(({ id }) => redis.hget(keys.status(keys.partitionForOperation(id)!, id), "status")),
          )) as string[],
        );
      }),
    );
    await subscriber.subscribe(keys.statusChannel());

    const acknowledged = await finishOperations(redis, keys, { statuses, acknowledged: read }, 60);

    expect(acknowledged).toBe(PARTITIONS * 2);
    expect(await heard).toEqual(statuses.map(() => "succeeded"));
    for (let partition = 0; partition < PARTITIONS; partition++)
      expect(await pendingOf(partition)).toEqual([]);
    const ttl = await redis.ttl(keys.status(keys.partitionForOperation(statuses[0]!.id)!, statuses[0]!.id));
    expect(ttl).toBeGreaterThan(0);

    // The trim keeps the last delivered entry (trim-acknowledged-1.lua) and every undelivered one.
    expect(await trimAcknowledgedEntries(redis, keys)).toBe(PARTITIONS);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const left = (await redis.xrange(keys.stream(partition), "-", "+")).map(([id]) => id);
      expect(left).toEqual(ids[partition]!.slice(1));
    }
  });
});

describe("on a Redis Cluster only", () => {
  let redis: ScriptedRedis;
  let reader: ScriptedRedis;
  let keys: QueueKeys;

  beforeAll(async () => {
    redis = createRedis(cluster.url, { name: "partitions-test-cluster" });
    reader = createRedis(cluster.url, { name: "partitions-test-cluster-reader" });
    opened.push(redis, reader);
    await Promise.all([waitForRedis(redis), waitForRedis(reader)]);
    keys = new QueueKeys("fgt:partitions-cluster:", PARTITIONS);
    await ensureConsumerGroups(redis, keys);
  });

  it("spreads the partitions' streams over every master (so the tests above cross nodes)", async () => {
    const ranges = await redis.cluster("SLOTS");
    const masters = new Set<number>();
    for (const stream of keys.allStreams()) {
      const slot = (await redis.cluster("KEYSLOT", stream)) as number;
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      masters.add(range![2]![1]);
    }
    expect(masters.size).toBe(cluster.masters.length);
  });

  it("hands over what the other partitions gave when one partition's read fails", async () => {
    const written: string[] = [];
    for (let partition = 0; partition < PARTITIONS; partition++) {
      written.push((await redis.xadd(keys.stream(partition), "*", "id", `op-${partition}`, "m", "{}"))!);
    }
    // Partition 5 loses its group (a master that restarted empty): its read answers NOGROUP.
    await redis.xgroup("DESTROY", keys.stream(5), CONSUMER_GROUP);

    const failure = await readNewEntries(reader, keys, "reader", 10).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PartialReadError);
    const { entries, cause } = failure as PartialReadError;
    expect(isMissingGroup(cause)).toBe(true);
    expect(entries.map((entry) => entry.entryId)).toEqual(written.filter((_, partition) => partition !== 5));
    // The failure also stands for claims: they go per partition in the same way.
    await expect(claimStaleEntries(redis, keys, "claimer", STALE_MS, 10)).rejects.toBeInstanceOf(
      PartialReadError,
    );
  });
  it("leaves a failed partition out of the next reads for its backoff, and reads it again once it answers", async () => {
    const backoffKeys = new QueueKeys("fgt:partitions-backoff:", PARTITIONS);
    await ensureConsumerGroups(redis, backoffKeys);
    const append = async () => {
      const ids: string[] = [];
      for (let partition = 0; partition < PARTITIONS; partition++) {
        ids.push((await redis.xadd(backoffKeys.stream(partition), "*", "id", `op-${partition}`, "m", "{}"))!);
      }
      return ids;
    };
    // The backoff's clock is the test's, so "right after" cannot outlast the first 100 ms on a loaded machine.
    let now = 1_000_000;
    const backoff = new (class extends PartitionBackoff {
      override skips(partition: number) {
        return super.skips(partition, now);
      }
      override failed(partition: number) {
        super.failed(partition, now);
      }
    })();
    await append();
    await redis.xgroup("DESTROY", backoffKeys.stream(7), CONSUMER_GROUP);
    const failure = await readNewEntries(reader, backoffKeys, "reader", 10, undefined, backoff).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PartialReadError);
    expect(backoff.failing).toEqual([7]);

    // Right after: partition 7 is not read (no error), the others are.
    const second = await append();
    const read = await readNewEntries(reader, backoffKeys, "reader", 10, undefined, backoff);
    expect(read.map((entry) => entry.entryId).sort()).toEqual(second.filter((_, p) => p !== 7).sort());

    // Its group back and its backoff over (at most 2 s): it is read again, from the group's start.
    await redis.xgroup("CREATE", backoffKeys.stream(7), CONSUMER_GROUP, "0");
    now += 2_001;
    const third = await readNewEntries(reader, backoffKeys, "reader", 10, undefined, backoff);
    expect(third.map((entry) => entry.partition)).toEqual([7, 7]);
    expect(backoff.failing).toEqual([]);
  });
});
