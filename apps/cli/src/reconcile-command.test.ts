// `./floodgate reconcile` as an operator runs it: a child process against this file's own Redis prefix and
// databases, judged by its output and exit status.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { newProductId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { writeProductState } from "@floodgate/reservations";
import { configToEnv, createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const COMMAND = fileURLToPath(new URL("./reconcile-command.ts", import.meta.url));

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let productId: string;

beforeAll(async () => {
  env = await createTestEnvironment("reconcile-cli", { shards: 2 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  // A product as POST /v1/products leaves it: the row, then its Redis state.
  productId = newProductId();
  await global
    .insertInto("products")
    .values({ id: productId, name: "lamp", price: 2_500, stock: 10, received: 10 })
    .execute();
  await writeProductState(redis, keys, { id: productId, price: 2_500, stock: 10 });
});

afterAll(async () => {
  redis?.disconnect();
  await global?.destroy();
  await env?.cleanup();
});

function reconcileCommand(args: string[] = [], extraEnv: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [COMMAND, ...args], {
      env: { PATH: process.env.PATH ?? "", ...configToEnv(env.config), ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const available = async () => redis.hget(keys.productState(productId), "available");

describe("./floodgate reconcile", () => {
  it("on a clean system reports no drift and exits 0", async () => {
    const { status, stdout } = await reconcileCommand();
    expect(stdout).toBe(
      "[reconcile] queue drained: comparing Redis with Postgres\n" +
        "[reconcile] summary: products checked 1, coupons checked 0, paid orders 0 from wallets and 0 at providers, drift found 0, repaired 0, not repaired 0\n",
    );
    expect(status).toBe(0);
  });

  it("names each drifted item with what it repaired, and exits 0", async () => {
    await redis.hset(keys.productState(productId), "available", 3);
    const { status, stdout } = await reconcileCommand();
    expect(stdout).toContain(
      `[reconcile] drift product ${productId} product_available: redis available 3, postgres stock 10 -> repaired (available = 10)\n`,
    );
    expect(stdout).toContain("drift found 1, repaired 1, not repaired 0");
    expect(status).toBe(0);
    expect(await available()).toBe("10");
    // Kept for the intake's /metrics (floodgate_reconcile_drift_found), where the drift alert reads it.
    expect(await redis.hmget(keys.reconcileResult(), "drift", "unrepaired")).toEqual(["1", "0"]);
  });

  it("with --dry-run reports what it would repair, writes nothing and exits 1", async () => {
    await redis.hset(keys.productState(productId), "available", 12);
    const { status, stdout } = await reconcileCommand(["--dry-run"]);
    expect(stdout).toContain(
      "product_available: redis available 12, postgres stock 10 -> would repair (available = 10)",
    );
    expect(stdout).toContain("drift found 1, would repair 1 (dry run: nothing written), not repaired 0");
    expect(status).toBe(1);
    expect(await available()).toBe("12");
    expect(await redis.hget(keys.reconcileResult(), "drift")).toBe("1"); // still the last real run's
    expect((await reconcileCommand()).status).toBe(0);
    expect(await available()).toBe("10");
  });

  it("reports Postgres-side drift as needing a human and exits 1", async () => {
    await global.updateTable("products").set({ stock: 8 }).where("id", "=", productId).execute();
    const { status, stdout } = await reconcileCommand();
    expect(stdout).toContain(
      `drift product ${productId} product_ledger: postgres received 10 != stock 8 + ledger units 0 -> not repaired, needs a human`,
    );
    expect(stdout).toContain("drift found 2, repaired 1, not repaired 1");
    expect(stdout).toContain("postgres-side drift is not repaired automatically");
    expect(status).toBe(1);
    await global.updateTable("products").set({ stock: 10 }).where("id", "=", productId).execute();
    expect((await reconcileCommand()).status).toBe(0);
  });

  it("with entries in flight compares Postgres only and says so", async () => {
    await redis.xadd(keys.stream(0), "*", "id", "op_in_flight", "m", "{}");
    await redis.hset(keys.productState(productId), "available", 4);
    const { status, stdout } = await reconcileCommand();
    expect(stdout).toContain(
      "[reconcile] Redis comparisons skipped, the queue is not drained: 1 entries in flight (0 pending, 1 undelivered); checked Postgres only\n",
    );
    expect(stdout).toContain("drift found 0, repaired 0, not repaired 0 (Redis not compared)");
    expect(status).toBe(0);
    expect(await available()).toBe("4");
    await redis.del(keys.stream(0));
    expect((await reconcileCommand()).status).toBe(0);
  });

  it("exits 2 on an unknown argument or a bad configuration, checking nothing", async () => {
    const usage = await reconcileCommand(["--force"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("[reconcile] Unknown option '--force'");
    const config = await reconcileCommand([], { STREAM_PARTITIONS: "zero" });
    expect(config.status).toBe(2);
    expect(config.stderr).toContain("STREAM_PARTITIONS");
    expect(config.stdout).toBe("");
  });

  it("exits 2 with SHARD_URLS swapped, naming both shards, repairing nothing", async () => {
    await redis.hset(keys.productState(productId), "available", 4);
    const [first, second] = env.config.shardUrls;
    const { status, stdout, stderr } = await reconcileCommand([], { SHARD_URLS: `${second},${first}` });
    expect(status).toBe(2);
    expect(stderr).toMatch(
      /^\[reconcile\] could not reconcile: SHARD_URLS\[0\] \S+_s1 is shard 1 of deployment [0-9a-f-]{36}, not shard 0: SHARD_URLS is out of order\n$/,
    );
    expect(stdout).toBe("");
    expect(await available()).toBe("4");
    expect((await reconcileCommand()).status).toBe(0); // the right order repairs it
  });
});
