// The intake's in-memory server keys against the real global database: a change heard while a reload reads
// (a key created or revoked on another process at that moment) survives the reload's older snapshot.
import { createApiKey, generateApiKey } from "@floodgate/auth";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerKeyCache } from "../src/auth/server-key-cache.ts";

let env: TestEnvironment;
let db: Kysely<GlobalDatabase>;
let cache: ServerKeyCache;

beforeAll(async () => {
  env = await createTestEnvironment("server-key-cache", { shards: 1 });
  db = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  cache = new ServerKeyCache({
    db,
    redisUrl: env.config.redisUrl,
    channel: `${env.config.redisPrefix}api-keys`,
    log: pino({ level: "silent" }) as unknown as FastifyBaseLogger,
  });
  await cache.start();
});

afterAll(async () => {
  cache?.stop();
  await db?.destroy();
  await env?.cleanup();
});

describe("the server key cache", () => {
  it("knows the keys stored before it started, and verifies nothing else", async () => {
    expect(cache.verify(env.serverKey)).not.toBeNull();
    expect(cache.verify(generateApiKey().key)).toBeNull();
    expect(cache.verify("not a key")).toBeNull();
  });

  it("keeps a key added while a reload reads, though the reload's snapshot does not hold it", async () => {
    const fresh = generateApiKey(); // never stored: no snapshot can hold it
    const reloading = cache.reload();
    cache.add(fresh);
    await reloading;
    expect(cache.verify(fresh.key)).toBe(fresh.id);
  });

  it("keeps a revocation heard while a reload reads, though the reload's snapshot still holds the key", async () => {
    const stored = await createApiKey(db, "revoked during a reload");
    await cache.reload();
    expect(cache.verify(stored.key)).toBe(stored.id);
    const reloading = cache.reload();
    cache.remove(stored.id); // the row is still active: only the message says otherwise
    await reloading;
    expect(cache.verify(stored.key)).toBeNull();
  });
});
