// REDIS_WAIT_REPLICAS on one Redis with a replica (private servers, never the shared one): 0 keeps the intake's
// budget of one command per accepted payment; 1 too on the request connection, and answers 202 only once the
// replica has the entry (the master's fence and WAIT go on a connection of their own, replica-wait.ts); a replica
// that does not confirm in time turns the 202 into a 503 that says the request may have been stored, and a retry
// with the same Idempotency-Key is answered once the replica has it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { decodeOperationMessage } from "@floodgate/domain";
import {
  createTestEnvironment,
  type RedisServer,
  startRedisServer,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, createCoupon, issue } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, metricValue, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let dir: string | undefined;
let master: RedisServer;
let replica: RedisServer;
let replicaClient: Redis;
let env: TestEnvironment;
/** REDIS_WAIT_REPLICAS=1 and =0, on the same master. */
let waiting: FastifyInstance;
let notWaiting: FastifyInstance;

const portOf = (url: string) => Number(new URL(url).port);

async function followMaster(): Promise<void> {
  replicaClient?.disconnect();
  replicaClient = new Redis(replica.url, { maxRetriesPerRequest: 1 });
  replicaClient.on("error", () => {}); // killed on purpose below
  await replicaClient.replicaof("127.0.0.1", portOf(master.url));
  await waitUntil(
    () => replicaClient.info("replication"),
    (info) => /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info),
    "the replica in sync",
  );
  // The master counts a replica for WAIT only once it is online on the master's side too (after the replica's
  // first acknowledgement following the sync, up to a second later): a WAIT before that finds no replica.
  const masterClient = new Redis(master.url, { maxRetriesPerRequest: 1 });
  try {
    await waitUntil(
      () => masterClient.info("replication"),
      (info) => /connected_slaves:1/.test(info) && /slave0:.*state=online/.test(info),
      "the master counting its replica",
    );
  } finally {
    masterClient.disconnect();
  }
}

beforeAll(async () => {
  // A replica's full sync lands in its dir as dump.rdb: a temp dir of the test's, not the working directory.
  dir = await mkdtemp(path.join(tmpdir(), "replica-wait-"));
  [master, replica] = await Promise.all([startRedisServer({ dir }), startRedisServer({ dir })]);
  await followMaster();
  env = await createTestEnvironment("replica-wait", {
    env: { ...ADMIN_ENV, REDIS_URL: master.url, REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "2000" },
  });
  waiting = await buildApp(env.config, { logger: false });
  notWaiting = await buildApp({ ...env.config, redisWaitReplicas: 0 }, { logger: false });
  await Promise.all([waiting.ready(), notWaiting.ready()]);
});

afterAll(async () => {
  await Promise.all([waiting?.close(), notWaiting?.close()]);
  replicaClient?.disconnect();
  await env?.cleanup();
  await Promise.all([master?.stop(), replica?.stop()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Counts the writes the request connection makes to its socket, and the commands it sends, during `fn`. */
async function traffic<T>(app: FastifyInstance, fn: () => Promise<T>) {
  const socket = (app.redis as Redis).stream;
  const write = socket.write;
  let writes = 0;
  socket.write = function (this: typeof socket, ...args: Parameters<typeof write>) {
    writes++;
    return write.apply(this, args);
  } as typeof write;
  const commandsBefore = metricValue(await scrape(app), "floodgate_intake_redis_commands_total");
  try {
    const result = await fn();
    const commands = metricValue(await scrape(app), "floodgate_intake_redis_commands_total") - commandsBefore;
    return { result, writes, commands };
  } finally {
    socket.write = write;
  }
}

async function scrape(app: FastifyInstance): Promise<string> {
  return (await documentedInject(app, { method: "GET", url: "/metrics" })).body;
}

/** The ids of a user's entries in their partition stream, as a given server holds them. */
async function idsOn(client: Redis, app: FastifyInstance, userId: string): Promise<string[]> {
  const stream = app.queueKeys.stream(app.queueKeys.partitionForUser(userId));
  const entries = await client.xrange(stream, "-", "+");
  return entries
    .map(([, fields]) =>
      decodeOperationMessage(fields[fields.indexOf("m") + 1]!, fields[fields.indexOf("id") + 1]!),
    )
    .filter((message) => "userId" in message && message.userId === userId)
    .map((message) => message.id);
}

describe("REDIS_WAIT_REPLICAS on one Redis", () => {
  it("0: one command and one write per accepted payment, as ever", async () => {
    // Warm-up: the first script call of a connection may load the script.
    expect((await post(notWaiting, "/v1/payments", { userId: "rw-warm0", amount: 1 })).statusCode).toBe(202);
    for (let i = 0; i < 3; i++) {
      const { result, writes, commands } = await traffic(notWaiting, () =>
        post(notWaiting, "/v1/payments", { userId: `rw-zero-${i}`, amount: 5 }),
      );
      expect(result.statusCode).toBe(202);
      expect({ writes, commands }).toEqual({ writes: 1, commands: 1 });
    }
  });

  it("1: the script alone on the request connection, and the 202 only once the replica has the entry", async () => {
    expect((await post(waiting, "/v1/payments", { userId: "rw-warm1", amount: 1 })).statusCode).toBe(202);
    for (let i = 0; i < 3; i++) {
      const userId = `rw-one-${i}`;
      const { result, writes, commands } = await traffic(waiting, () =>
        post(waiting, "/v1/payments", { userId, amount: 5 }),
      );
      expect(result.statusCode).toBe(202);
      expect({ writes, commands }).toEqual({ writes: 1, commands: 1 });
      // Read at once, from the replica itself: WAIT returned, so it is there.
      expect(await idsOn(replicaClient, waiting, userId)).toContain(result.json().id);
    }
  });

  it("1: coupon issues and orders too: one script on the request connection, the entry on the replica first", async () => {
    const coupon = await createCoupon(waiting, { quantity: 10 });
    const product = await createProduct(waiting, { stock: 10, price: 700 });
    const order = (userId: string) => ({ userId, items: [{ productId: product.id, quantity: 1 }] });
    // Warm-up: the first call of each script may load it.
    expect((await issue(waiting, coupon.id, "rw-cpn-warm")).statusCode).toBe(202);
    expect((await post(waiting, "/v1/orders", order("rw-ord-warm"))).statusCode).toBe(202);

    const issued = await traffic(waiting, () => issue(waiting, coupon.id, "rw-cpn"));
    const ordered = await traffic(waiting, () => post(waiting, "/v1/orders", order("rw-ord")));
    for (const [{ result, writes, commands }, userId] of [
      [issued, "rw-cpn"],
      [ordered, "rw-ord"],
    ] as const) {
      expect(result.statusCode, result.body).toBe(202);
      expect({ writes, commands }).toEqual({ writes: 1, commands: 1 });
      expect(await idsOn(replicaClient, waiting, userId)).toContain(result.json().id);
    }
  });

  it("1: a replica that does not confirm in time makes it a 503 'may have been stored'; the retry answers it", async () => {
    const userId = "rw-shortfall";
    const headers = { "idempotency-key": "rw-shortfall-1" };
    const before = metricValue(await scrape(waiting), "floodgate_intake_replica_wait_shortfalls_total");
    await replica.kill();

    const first = await post(waiting, "/v1/payments", { userId, amount: 7 }, headers);
    const problem = expectProblem(first, 503, "service_unavailable");
    expect(first.headers["retry-after"]).toBe("1");
    expect(problem.detail).toMatch(/may or may not/);
    expect(problem.detail).toMatch(/same Idempotency-Key/);
    // Stored on the master all the same: that is why the answer may never say "nothing was stored".
    const master = new Redis(env.config.redisUrl);
    try {
      const stored = await idsOn(master, waiting, userId);
      expect(stored).toHaveLength(1);

      // A retry finds it (a replay), but the replica still cannot confirm it: the same 503, never a 202.
      const replayWithoutReplica = await post(waiting, "/v1/payments", { userId, amount: 7 }, headers);
      expectProblem(replayWithoutReplica, 503, "service_unavailable");
      expect(metricValue(await scrape(waiting), "floodgate_intake_replica_wait_shortfalls_total")).toBe(
        before + 2,
      );

      // Back, and in sync: the retry is the first request's outcome, its id, confirmed.
      await replica.start();
      await followMaster();
      const retry = await post(waiting, "/v1/payments", { userId, amount: 7 }, headers);
      expect(retry.statusCode, retry.body).toBe(202);
      expect(retry.headers["idempotent-replayed"]).toBe("true");
      expect(retry.json().id).toBe(stored[0]);
      expect(await idsOn(master, waiting, userId)).toEqual(stored);
      expect(await idsOn(replicaClient, waiting, userId)).toEqual(stored);
    } finally {
      master.disconnect();
    }
  });

  it("1: a refusal waits for nothing it did not store (a key reused with another body is a 422, replica or not)", async () => {
    const headers = { "idempotency-key": "rw-refused-1" };
    expect(
      (await post(waiting, "/v1/payments", { userId: "rw-refused", amount: 1 }, headers)).statusCode,
    ).toBe(202);
    await replica.kill();
    try {
      const reused = await post(waiting, "/v1/payments", { userId: "rw-refused", amount: 2 }, headers);
      expectProblem(reused, 422, "idempotency_key_reused", "Idempotency-Key");
    } finally {
      await replica.start();
      await followMaster();
    }
  });
});
