// `./floodgate migrate` as an operator runs it, against this file's own databases: with SHARD_URLS out of order
// it exits 1 with one line naming the shard each database is and the place it was given.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { configToEnv, createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const COMMAND = fileURLToPath(new URL("./migrate-command.ts", import.meta.url));

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment("migrate-cli", { shards: 4 });
});

afterAll(async () => {
  await env?.cleanup();
});

function migrateCommand(shardUrls: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [COMMAND], {
      env: { PATH: process.env.PATH ?? "", ...configToEnv(env.config), SHARD_URLS: shardUrls.join(",") },
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

describe("./floodgate migrate", () => {
  it("refuses the 3rd and 4th SHARD_URLS swapped with one line naming both, and passes the right order", async () => {
    const [a, b, c, d] = env.config.shardUrls as [string, string, string, string];
    const swapped = await migrateCommand([a, b, d, c]);
    expect(swapped.status).toBe(1);
    expect(swapped.stderr).toMatch(
      /^\[floodgate\] migrate failed: SHARD_URLS\[2\] \S+_s3 is shard 3 of deployment [0-9a-f-]{36}, not shard 2: SHARD_URLS is out of order\n$/,
    );
    const right = await migrateCommand([a, b, c, d]);
    expect(right.stderr).toBe("");
    expect(right.status).toBe(0);
    expect(right.stdout).toContain("done: global + 4 shards");
    // The first run made the first admission signing key; a second run keeps it.
    expect(right.stdout).toContain("made the first admission signing key");
    const db = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
    try {
      const keys = () => db.selectFrom("admission_signing_keys").select(["generation", "kid"]).execute();
      const made = await keys();
      expect(made).toEqual([{ generation: 1, kid: expect.any(String) }]);
      const again = await migrateCommand([a, b, c, d]);
      expect(again.status).toBe(0);
      expect(again.stdout).not.toContain("made the first admission signing key");
      expect(await keys()).toEqual(made);
    } finally {
      await db.destroy();
    }
  });
});
