// An upgrade from the release whose BullMQ queues had no hash tag (prefix `<REDIS_PREFIX>bull`), on one Redis:
// an order expiry and a webhook delivery that release left as delayed jobs under the old prefix still run once
// a worker of this release starts (no worker of the old release is left), the worker stops running the old
// queue once it is empty, and in cluster mode it never looks at it.
import type { RedisConnection } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { Queue, Worker } from "bullmq";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bullPrefix, legacyBullPrefix } from "../src/job-queue-prefix.ts";
import { LegacyJobDrain } from "../src/legacy-job-drain.ts";
import { ORDER_EXPIRY_QUEUE } from "../src/orders/order-expiry.ts";
import { WEBHOOK_QUEUE } from "../src/webhooks/webhook-delivery-worker.ts";
import { ADMIN_KEY } from "./support/coupon-client.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import { type IntakeApp, startIntake } from "./support/intake-client.ts";
import { createProduct, orderView, placeOrder } from "./support/order-client.ts";
import { waitFor } from "./support/wait-for.ts";

let env: TestEnvironment;
let app: IntakeApp;
let worker: InProcessWorker | undefined;
const queues: Queue[] = [];
const silent = pino({ level: "silent" });

beforeAll(async () => {
  // Orders of this release expire in an hour: an order that expires during the test did so by the old job.
  env = await createTestEnvironment("legacy-job-drain", {
    shards: 2,
    env: { ADMIN_API_KEY: ADMIN_KEY, ORDER_TTL_SECONDS: "3600" },
  });
  app = await startIntake(env.config);
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(queues.map((queue) => queue.close()));
  await app?.close();
  await env?.cleanup();
});

/** A queue as the previous release named it. */
function legacyQueue(name: string): Queue {
  const queue = new Queue(name, {
    connection: { url: env.config.redisUrl },
    prefix: legacyBullPrefix(env.config),
  });
  queues.push(queue);
  return queue;
}

describe("jobs the previous release left under the untagged prefix", () => {
  it("run once a worker of this release starts: an order expiry, a webhook delivery", async () => {
    const productId = await createProduct(app, 3);
    const placed = await placeOrder(app, { userId: "legacy-expiry", items: [{ productId, quantity: 1 }] });
    const orderId = placed.json().id as string;
    const expiries = legacyQueue(ORDER_EXPIRY_QUEUE);
    await expiries.add(
      "expire",
      { orderIds: [orderId] },
      { jobId: "expire-legacy", delay: 200, removeOnComplete: true },
    );
    // A delivery whose row is gone: the job finishes saying so (what matters is that it ran).
    const deliveries = legacyQueue(WEBHOOK_QUEUE);
    await deliveries.add("deliver", { deliveryId: "whd_gone" }, { jobId: "whd_gone", delay: 200 });
    expect(await expiries.getDelayedCount()).toBe(1);

    worker = await startInProcessWorker(env.config, "legacy-drain");
    await waitFor(
      async () => (await orderView(app, orderId)).status === "expired",
      "the order to expire by the old job",
      undefined,
      () => worker!.logs(),
    );
    expect(await counterValue(worker.metrics.orderExpiries, { outcome: "requested" })).toBe(1);
    await waitFor(
      async () => (await deliveries.getJobState("whd_gone")) === "completed",
      "the old delivery job",
    );
    expect((await deliveries.getJob("whd_gone"))?.returnvalue).toBe("endpoint deleted");
    expect(await expiries.getJobCountByTypes("wait", "delayed", "active")).toBe(0);
    expect(worker.logs()).toContain("running the jobs a previous release left under the old BullMQ prefix");
  });

  it("are not in the tagged queues, which have their own prefix", () => {
    expect(bullPrefix(env.config, ORDER_EXPIRY_QUEUE)).toBe(`${env.config.redisPrefix}{bull-order-expiry}`);
    expect(bullPrefix(env.config, WEBHOOK_QUEUE)).toBe(`${env.config.redisPrefix}{bull-webhook-deliveries}`);
    expect(legacyBullPrefix(env.config)).toBe(`${env.config.redisPrefix}bull`);
  });
});

describe("LegacyJobDrain", () => {
  const name = "drain-test";
  const start = (ran: string[]) => (prefix: string, connection: RedisConnection) =>
    new Worker(
      name,
      async (job) => {
        ran.push(job.id!);
      },
      { connection, prefix },
    );

  it("runs the old queue while it holds jobs and stops once it is empty", async () => {
    const ran: string[] = [];
    await legacyQueue(name).add("job", {}, { jobId: "old-1", removeOnComplete: true });
    const drain = new LegacyJobDrain({
      config: env.config,
      log: silent,
      queue: name,
      startWorker: start(ran),
    });
    try {
      drain.start();
      await drain.check();
      expect(drain.draining).toBe(true);
      await waitFor(() => ran.includes("old-1"), "the old job to run");
      await waitFor(async () => {
        await drain.check();
        return !drain.draining;
      }, "the drain to stop");
      // A job added later (a worker of the previous release still running) starts it again.
      await legacyQueue(name).add("job", {}, { jobId: "old-2", removeOnComplete: true });
      await drain.check();
      expect(drain.draining).toBe(true);
      await waitFor(() => ran.includes("old-2"), "the later old job to run");
    } finally {
      await drain.close();
    }
    expect(drain.draining).toBe(false);
  });

  it("looks at nothing in cluster mode (a cluster never held the untagged prefix)", async () => {
    const ran: string[] = [];
    await legacyQueue(name).add("job", {}, { jobId: "old-3", removeOnComplete: true });
    const drain = new LegacyJobDrain({
      config: { ...env.config, redisUrl: "redis+cluster://127.0.0.1:1" },
      log: silent,
      queue: name,
      startWorker: start(ran),
    });
    drain.start();
    await drain.check();
    expect(drain.draining).toBe(false);
    await drain.close();
    expect(ran).toEqual([]);
  });
});
