// A worker on a real Redis Cluster (3 masters, 3 replicas, private ports) with real shards: payments and
// deposits XADDed to every partition (as the enqueue script writes them; the intake cannot enqueue on a cluster
// yet) are read, applied once each, finished (statuses, XACK) and trimmed; entries a consumer read and then died
// with are claimed after the visibility timeout and applied too. The partitions' streams sit on every master,
// so a read, claim, finish or trim that named two partitions would be refused (CROSSSLOT). A partition that
// lost its group is given it again while the others go on.
import { encodeOperationMessage } from "@floodgate/domain";
import { CONSUMER_GROUP, QueueKeys, readNewEntries } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisCluster,
  startRedisCluster,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OperationRequest, operationMessage } from "./support/accept-operations.ts";
import { type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { pendingCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

const USERS = 64; // over all 16 partitions
const VISIBILITY_TIMEOUT_MS = 2000;

let env: TestEnvironment;
let cluster: RedisCluster;
let redis: ScriptedRedis;
let keys: QueueKeys;
let ledger: LedgerReader;
let worker: InProcessWorker | undefined;
const accepted: AcceptedOperation[] = [];

beforeAll(async () => {
  [env, cluster] = await Promise.all([
    createTestEnvironment("cluster-reads", {
      shards: 2,
      env: { VISIBILITY_TIMEOUT_MS: String(VISIBILITY_TIMEOUT_MS), STREAM_PARTITIONS: "16" },
    }),
    startRedisCluster({ masters: 3, replicasPerMaster: 1 }),
  ]);
  redis = createRedis(cluster.url, { name: "cluster-reads-test" });
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  ledger = new LedgerReader(env.config.shardUrls);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await ledger?.close();
  redis?.disconnect();
  await cluster?.stop();
  await env?.cleanup();
}, 60_000);

/** What enqueue-operations-n.lua writes for an accepted operation: its pending status (with its id), then its entry. */
async function enqueue(requests: OperationRequest[]): Promise<AcceptedOperation[]> {
  const written: AcceptedOperation[] = [];
  for (const request of requests) {
    const message = operationMessage(request);
    const partition = keys.partitionForUser(message.userId);
    const payload = encodeOperationMessage(message);
    await redis.hset(
      keys.status(partition, message.id),
      "status",
      "pending",
      "id",
      message.id,
      "message",
      payload,
    );
    await redis.xadd(keys.stream(partition), "*", "id", message.id, "m", payload);
    written.push({ id: message.id, kind: message.kind, userId: message.userId, amount: message.amount });
  }
  return written;
}

const requestsFor = (tag: string): OperationRequest[] => {
  const requests: OperationRequest[] = [];
  for (let u = 0; u < USERS; u++) requests.push({ kind: "deposit", userId: `${tag}-${u}`, amount: 1_000 });
  for (let u = 0; u < USERS; u++) requests.push({ kind: "payment", userId: `${tag}-${u}`, amount: 400 });
  for (let u = 0; u < USERS; u++) requests.push({ kind: "payment", userId: `${tag}-${u}`, amount: 700 });
  return requests;
};

const statusOf = (id: string) => redis.hget(keys.status(keys.partitionForOperation(id)!, id), "status");
const allFinal = async (operations: AcceptedOperation[]) =>
  (await Promise.all(operations.map((op) => statusOf(op.id)))).every((s) => s !== null && s !== "pending");

describe("a worker on a Redis Cluster", () => {
  it("uses every partition, and the partitions sit on every master", async () => {
    const users = new Set(requestsFor("spread").map((r) => keys.partitionForUser(r.userId)));
    expect(users.size).toBe(keys.partitions);
    const ranges = await redis.cluster("SLOTS");
    const masters = new Set<number>();
    for (const stream of keys.allStreams()) {
      const slot = (await redis.cluster("KEYSLOT", stream)) as number;
      masters.add(ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1]);
    }
    expect(masters.size).toBe(cluster.masters.length);
  });

  it("reads every partition, applies each operation once in its user's order, and acknowledges it", async () => {
    worker = await startInProcessWorker({ ...env.config, redisUrl: cluster.url }, "cluster-worker");
    const batch = await enqueue(requestsFor("read"));
    accepted.push(...batch);

    await waitFor(() => allFinal(batch), "every operation to be finished");
    await waitFor(async () => (await pendingCount(redis, keys)) === 0, "every entry to be acknowledged");

    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
    expectWalletsBalance(snapshot);
    // Per user: the deposit went first (1,000), so the first payment (400) succeeded and the second (700) did not.
    const statuses = await Promise.all(batch.map((op) => statusOf(op.id)));
    expect(statuses).toEqual(batch.map((_, i) => (i < 2 * USERS ? "succeeded" : "failed")));
  });

  it("claims what a consumer read and then died with, after the visibility timeout", async () => {
    // Stopped, so that the consumer that dies reads every entry (a running worker would race it for them).
    await worker?.stop();
    const batch = await enqueue(requestsFor("orphan").slice(0, USERS)); // deposits
    const taken = await readNewEntries(redis, keys, "died", 1000);
    expect(taken.map((entry) => entry.operationId).sort()).toEqual(batch.map((op) => op.id).sort());
    accepted.push(...batch);

    worker = await startInProcessWorker({ ...env.config, redisUrl: cluster.url }, "cluster-worker-2");

    await waitFor(() => allFinal(batch), "the orphaned operations to be claimed and finished");
    await waitFor(async () => (await pendingCount(redis, keys)) === 0, "every entry to be acknowledged");
    expectEachAppliedOnce(await ledger.read(), accepted, env.config.shardUrls.length);
  });

  it("creates a partition's lost group again, and meanwhile applies what the other partitions hold", async () => {
    // A master restarted empty: one partition's stream and group are gone, so its reads answer NOGROUP while
    // the other partitions' reads go on (their entries are dispatched, not dropped with the failure).
    const lost = keys.stream(3);
    await redis.del(lost);
    const batch = await enqueue(requestsFor("regroup").slice(0, USERS)); // deposits, some of them in partition 3
    expect(batch.some((op) => keys.partitionForOperation(op.id) === 3)).toBe(true);
    accepted.push(...batch);

    await waitFor(() => allFinal(batch), "every partition's operations to be finished");
    const groups = (await redis.xinfo("GROUPS", lost)) as unknown[][];
    expect(groups.map((fields) => fields[1])).toEqual([CONSUMER_GROUP]);
    expect(worker!.logs()).toMatch(/consumer group missing; creating it again/);
    expectEachAppliedOnce(await ledger.read(), accepted, env.config.shardUrls.length);
  });

  it("trims the acknowledged entries of every partition", async () => {
    // The trim keeps each stream's last delivered entry (trim-acknowledged-1.lua) and runs every few seconds.
    await waitFor(async () => {
      const lengths = await Promise.all(keys.allStreams().map((stream) => redis.xlen(stream)));
      return lengths.every((length) => length <= 1);
    }, "every partition to be trimmed");
    for (const stream of keys.allStreams()) {
      const [pending] = (await redis.xpending(stream, CONSUMER_GROUP)) as [number];
      expect(pending).toBe(0);
    }
  });
});
