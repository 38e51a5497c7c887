// BullMQ on a real Redis Cluster (3 masters, 3 replicas; a private one): each queue's keys carry its own hash
// tag (job-queue-prefix.ts), so BullMQ's scripts run; a delayed order expiry fires and queues the order's end
// on its partition stream, a delayed webhook delivery job runs; the old untagged prefix could not have worked
// there, and the old-prefix drain stays off in cluster mode.
import type { Config } from "@floodgate/config";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { createWorkerMetrics } from "@floodgate/metrics";
import { QueueKeys } from "@floodgate/queue";
import {
  createJobQueueConnection,
  createRedis,
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
import { Queue, type Worker } from "bullmq";
import type { Kysely } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bullPrefix, legacyBullPrefix } from "../src/job-queue-prefix.ts";
import { ORDER_EXPIRY_QUEUE, OrderExpiry } from "../src/orders/order-expiry.ts";
import { startDeliveryWorker, WEBHOOK_QUEUE } from "../src/webhooks/webhook-delivery-worker.ts";
import { counterValue } from "./support/in-process-worker.ts";
import { waitFor } from "./support/wait-for.ts";

let cluster: RedisCluster;
let env: TestEnvironment;
let config: Config;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
const connections: RedisConnection[] = [];
const closers: (() => Promise<unknown>)[] = [];
const silent = pino({ level: "silent" });

beforeAll(async () => {
  cluster = await startRedisCluster();
  // Postgres for the delivery job's lookup; every Redis connection goes to the cluster.
  env = await createTestEnvironment("job-queues-cluster", { shards: 1 });
  config = { ...env.config, redisUrl: cluster.url };
  redis = createRedis(cluster.url, { name: "job-queues-cluster" });
  await waitForRedis(redis);
  keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
  global = createKysely<GlobalDatabase>(config.databaseUrl, { max: 1 });
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  for (const connection of connections) connection.disconnect();
  redis?.disconnect();
  await global?.destroy();
  await env?.cleanup();
  await cluster?.stop();
});

function connection(blocking: boolean): RedisConnection {
  const opened = createJobQueueConnection(cluster.url, { name: "job-queues-cluster-bull", blocking });
  connections.push(opened);
  return opened;
}

function queue(name: string, prefix: string): Queue {
  const opened = new Queue(name, { connection: connection(false), prefix });
  closers.push(() => opened.close());
  return opened;
}

describe("BullMQ queues on a cluster", () => {
  it("tag each queue's prefix with its own hash tag (two queues, two slots)", async () => {
    const slotOf = async (name: string) =>
      (await redis.cluster("KEYSLOT", `${bullPrefix(config, name)}:${name}:delayed`)) as number;
    expect(bullPrefix(config, ORDER_EXPIRY_QUEUE)).toBe(`${config.redisPrefix}{bull-order-expiry}`);
    expect(await slotOf(ORDER_EXPIRY_QUEUE)).not.toBe(await slotOf(WEBHOOK_QUEUE));
  });

  it("fire a delayed order expiry: the order's end is queued on its partition stream", async () => {
    const orderId = newOperationId("order", 7);
    const partition = keys.partitionForOperation(orderId)!;
    await redis.hset(keys.orderState(partition, orderId), "userId", "cluster-shopper");
    const expiry = new OrderExpiry(config, silent);
    closers.push(() => expiry.close());
    await expiry.schedule([{ orderId, userId: "cluster-shopper", expiresAt: Date.now() + 300 }]);
    expect(await queue(ORDER_EXPIRY_QUEUE, bullPrefix(config, ORDER_EXPIRY_QUEUE)).getDelayedCount()).toBe(1);
    const metrics = createWorkerMetrics();
    expiry.startFiring(redis, keys, metrics);
    await waitFor(
      async () => (await counterValue(metrics.orderExpiries, { outcome: "requested" })) === 1,
      "the expiry job to fire",
    );
    const endId = await redis.hget(keys.orderState(partition, orderId), "endId");
    expect(endId).toMatch(/^ocx_/);
    const entries = (await redis.xrange(keys.stream(partition), "-", "+")) as [string, string[]][];
    expect(entries.map(([, fields]) => fields[fields.indexOf("id") + 1])).toContain(endId);
  });

  it("run a delayed webhook delivery job", async () => {
    const deliveries = queue(WEBHOOK_QUEUE, bullPrefix(config, WEBHOOK_QUEUE));
    await deliveries.add("deliver", { deliveryId: "whd_cluster" }, { jobId: "whd_cluster", delay: 200 });
    const worker: Worker = startDeliveryWorker({
      config,
      log: silent,
      metrics: createWorkerMetrics(),
      global,
      connection: connection(true),
      prefix: bullPrefix(config, WEBHOOK_QUEUE),
    });
    closers.push(() => worker.close());
    await waitFor(
      async () => (await deliveries.getJobState("whd_cluster")) === "completed",
      "the delivery job",
    );
    expect((await deliveries.getJob("whd_cluster"))?.returnvalue).toBe("endpoint deleted");
  });

  it("could not have used the untagged prefix: the cluster refuses BullMQ's scripts across slots", async () => {
    const untagged = queue(ORDER_EXPIRY_QUEUE, legacyBullPrefix(config));
    await expect(untagged.add("expire", { orderIds: [] }, { delay: 60_000 })).rejects.toThrow(/CROSSSLOT/);
  });
});
