// The bench's Redis tooling on whatever Redis the vitest project gives (cluster-suites.ts): its cleanup by
// prefix, its key count and the settings it records reach every master of a Redis Cluster, and behave as
// before on one Redis.
import { randomBytes } from "node:crypto";
import { connectRedis, type RedisClient, testRedisUrl } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix } from "../src/harness/redis-cleanup.ts";
import { serviceSettings } from "../src/harness/service-settings.ts";
import { keyspaceReader } from "../src/payments/redis-keyspace.ts";

const clusterProject = process.env.FLOODGATE_TEST_REDIS === "cluster";
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
let redis: RedisClient;

beforeAll(() => {
  redis = connectRedis(testRedisUrl());
});

afterAll(() => redis?.disconnect());

/** Keys across the 16 partition tags and untagged, so a cluster holds them on every master. */
const keysUnder = (prefix: string) => [
  ...Array.from({ length: 16 }, (_, n) => `${prefix}{p${n}}:ops`),
  `${prefix}rooms`,
];

const existing = async (keys: string[]) =>
  (await Promise.all(keys.map((key) => redis.exists(key)))).reduce((sum, n) => sum + n, 0);

describe("deleteKeysWithPrefix and keyspaceReader", () => {
  it("delete the run's keys on every master, count them first, and leave another prefix's", async () => {
    const id = randomBytes(4).toString("hex");
    const run = keysUnder(`fgb:tooling_${id}:`);
    const other = keysUnder(`fgb:tooling_${id}x:`);
    await Promise.all([...run, ...other].map((key) => redis.set(key, "1", "EX", 600)));
    const keyspace = keyspaceReader(testRedisUrl());
    try {
      expect(await keyspace.keys()).toBeGreaterThanOrEqual(run.length + other.length);
      expect(await deleteKeysWithPrefix(testRedisUrl(), `fgb:tooling_${id}:`)).toBe(run.length);
      expect(await existing(run)).toBe(0);
      expect(await existing(other)).toBe(other.length);
    } finally {
      keyspace.close();
      await Promise.all(other.map((key) => redis.unlink(key)));
    }
  });
});

describe("serviceSettings", () => {
  it("records the Redis's version and persistence; a cluster's as one record over its masters", async () => {
    const { redis: settings } = await serviceSettings(POSTGRES_URL, testRedisUrl());
    expect(settings).not.toHaveProperty("error");
    expect(settings).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+/) });
    expect(Object.keys(settings)).toEqual(expect.arrayContaining(["appendonly", "appendfsync", "save"]));
    if (clusterProject) {
      // The fixture's nodes all run without persistence (redis-cluster-node.ts).
      expect(settings).toMatchObject({ masters: "3", appendonly: "no", save: "" });
    } else {
      expect(settings).not.toHaveProperty("masters");
    }
  });
});
