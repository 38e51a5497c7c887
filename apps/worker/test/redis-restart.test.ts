// Redis restarted empty (no persistence) under a running worker: what it had accepted is gone (infra/README
// says so), but its consumer groups are too. The worker must create them again at once, so that everything
// accepted after the restart is applied, exactly once.
import type { Config } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisServer,
  startRedisServer,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations } from "./support/accept-operations.ts";
import { type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount, pendingStatuses } from "./support/queue-inspection.ts";
import { roundFor, usersOnEveryShard } from "./support/shard-users.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 4;

let env: TestEnvironment;
let server: RedisServer;
let config: Config;
let ledger: LedgerReader;
let redis: ScriptedRedis;
let keys: QueueKeys;
let worker: InProcessWorker | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("redis-restart", { shards: SHARDS });
  server = await startRedisServer();
  config = { ...env.config, redisUrl: server.url };
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(server.url);
  redis.on("error", () => {}); // refused while the server restarts
  await waitForRedis(redis);
  keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
});

afterAll(async () => {
  await worker?.stop();
  await ledger?.close();
  redis?.disconnect();
  await server?.stop();
  await env?.cleanup();
});

describe("Redis restarted empty with a worker running", () => {
  it("applies everything accepted after the restart", async () => {
    worker = await startInProcessWorker(config, "restart-a");
    const before = await acceptOperations(redis, keys, roundFor(usersOnEveryShard("before", 5, SHARDS)));
    await waitFor(async () => (await ledger.count()) === before.length, "the operations accepted before");

    await server.kill();
    await server.start(); // empty: no streams, no consumer groups
    await waitFor(async () => (await redis.ping().catch(() => "")) === "PONG", "the client to reconnect");

    // The same users again and new ones, accepted only after the restart.
    const after: AcceptedOperation[] = [
      ...(await acceptOperations(redis, keys, roundFor(usersOnEveryShard("before", 5, SHARDS)))),
      ...(await acceptOperations(redis, keys, roundFor(usersOnEveryShard("after", 5, SHARDS)))),
    ];
    const accepted = [...before, ...after];
    await waitFor(
      async () => (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0,
      "everything accepted after the restart to be applied",
      45_000,
      () => worker!.logs(),
    );
    expect(worker.logs()).toContain("consumer group missing; creating it again");
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS);
    expectWalletsBalance(snapshot);
    expect(await deadLetters(redis, keys)).toEqual([]);
    expect(
      await pendingStatuses(
        redis,
        keys,
        after.map((a) => a.id),
      ),
    ).toEqual([]);
  });
});
