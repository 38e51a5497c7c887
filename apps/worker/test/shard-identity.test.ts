// A worker (and an intake) started with the 3rd and 4th SHARD_URLS swapped exits with the one line that names
// both shards, before it reads anything; with the right order it consumes as usual.
import { createKysely, type GlobalDatabase, readDeploymentId } from "@floodgate/db";
import {
  createTestEnvironment,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let env: TestEnvironment;
let expectedLine: string;

beforeAll(async () => {
  env = await createTestEnvironment("shard-identity", { shards: 4 });
  const global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  try {
    const deployment = await readDeploymentId(global, env.config.databaseUrl);
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
});
