import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKeyId, revokeApiKey } from "@floodgate/auth";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { developmentServerKey } from "./development-server-key.ts";

let env: TestEnvironment;
let dir: string;

beforeAll(async () => {
  env = await createTestEnvironment("devkey", { shards: 1 });
  dir = await mkdtemp(join(tmpdir(), "floodgate-devkey-"));
});

afterAll(async () => {
  await env.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe("the development server key of ./floodgate start", () => {
  it("is created once, saved readable by its owner only, and reused while it is active", async () => {
    const file = join(dir, "dev-server-key");
    const first = await developmentServerKey(env.config.databaseUrl, file);
    expect(first.created).toBe(true);
    expect(first.key).toMatch(/^fg_sk_/);
    expect((await readFile(file, "utf8")).trim()).toBe(first.key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const again = await developmentServerKey(env.config.databaseUrl, file);
    expect(again).toEqual({ key: first.key, created: false });
  });

  it("is replaced once revoked", async () => {
    const file = join(dir, "revoked-key");
    const first = await developmentServerKey(env.config.databaseUrl, file);
    const db = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
    try {
      await revokeApiKey(db, apiKeyId(first.key)!);
    } finally {
      await db.destroy();
    }
    const next = await developmentServerKey(env.config.databaseUrl, file);
    expect(next.created).toBe(true);
    expect(next.key).not.toBe(first.key);
    expect((await readFile(file, "utf8")).trim()).toBe(next.key);
  });
});
