// A worker (and an intake) started with the 3rd and 4th SHARD_URLS swapped exits with the one line that names
// both shards, before it reads anything; with the right order it consumes as usual. A shard out of reach at
// start is checked when it comes back, before the worker writes to it.
import { createKysely, type GlobalDatabase, readDeploymentId, type ShardDatabase } from "@floodgate/db";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startIntakeProcess,
  startTcpProxy,
  startWorkerProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposit, startIntake } from "./support/intake-client.ts";

let env: TestEnvironment;
let expectedLine: string;
let deployment: string;

beforeAll(async () => {
  env = await createTestEnvironment("shard-identity", { shards: 4 });
  const global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  try {
    deployment = await readDeploymentId(global, env.config.databaseUrl);
    expectedLine =
      `SHARD_URLS[2] ${env.config.shardUrls[3]} is shard 3 of deployment ${deployment}, not shard 2: ` +
      "SHARD_URLS is out of order";
  } finally {
    await global.destroy();
  }
});

afterAll(async () => {
  await env?.cleanup();
});

const swapped = () => {
  const [a, b, c, d] = env.config.shardUrls;
  return { ...env.config, shardUrls: [a!, b!, d!, c!] };
};

describe("shard identity at process start", () => {
  it("a worker with the 3rd and 4th SHARD_URLS swapped exits with the line naming both", async () => {
    const attempt = startWorkerProcess(swapped());
    await expect(attempt).rejects.toThrow(`floodgate worker: ${expectedLine}`);
  });

  it("an intake with them swapped exits with the same line", async () => {
    const attempt = startIntakeProcess(swapped());
    await expect(attempt).rejects.toThrow(`floodgate intake: ${expectedLine}`);
  });

  it("a worker with the right order starts consuming", async () => {
    const worker = await startWorkerProcess(env.config);
    try {
      expect(worker.output()).toContain("worker consuming");
    } finally {
      await worker.stop();
    }
  });

  it("a worker whose shard was out of reach at start exits when it answers as another shard, writing nothing there", async () => {
    const [s0, s1, s2] = env.config.shardUrls as [string, string, string, string];
    const proxy = await startTcpProxy("127.0.0.1", Number(new URL(s2).port || 5432));
    const intake = await startIntake(env.config);
    try {
      await proxy.down();
      const wrong = new URL(s2); // shard 2's database, given as shard 3, behind a proxy that is down
      wrong.port = String(proxy.port);
      const worker = await startWorkerProcess({ ...env.config, shardUrls: [s0, s1, s2, wrong.toString()] });
      expect(worker.output()).toContain("shards out of reach");
      const map = ShardMap.contiguous(4);
      const user = Array.from({ length: 1000 }, (_, i) => `late-${i}`).find(
        (id) => map.shardForBucket(bucketForUser(id)) === 3,
      )!;
      await deposit(intake, user, 1000);
      await proxy.up();
      expect(await worker.exited).toBe(78);
      expect(worker.output()).toContain(
        `floodgate worker: SHARD_URLS[3] ${wrong} is shard 2 of deployment ${deployment}, not shard 3: ` +
          "SHARD_URLS is out of order",
      );
      const shard2 = createKysely<ShardDatabase>(s2, { max: 1 });
      try {
        const rows = await shard2.selectFrom("deposits").select("id").where("user_id", "=", user).execute();
        expect(rows).toEqual([]);
      } finally {
        await shard2.destroy();
      }
    } finally {
      await intake.close();
      await proxy.close();
    }
  });
});
