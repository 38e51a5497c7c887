// Key listings and cleanup by prefix reach every master: scanKeys, unlinkMatching and countKeys, and
// createTestEnvironment's cleanup built on them. The file runs in both vitest projects: against the shared
// Redis ("single") and against the run's 3+3 Redis Cluster ("cluster", cluster-suites.ts), where the keys
// below, spread over many hash tags, sit on every master.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectRedis,
  countKeys,
  createTestEnvironment,
  isCluster,
  masterConnections,
  type RedisClient,
  scanKeys,
  testRedisUrl,
  unlinkMatching,
} from "../src/index.ts";

const clusterProject = process.env.FLOODGATE_TEST_REDIS === "cluster";
let redis: RedisClient;

beforeAll(async () => {
  redis = connectRedis(testRedisUrl());
});

afterAll(() => redis?.disconnect());

/** Keys under `prefix` as the app names them: the 16 partition tags, a few other tags and untagged ones. */
const keysUnder = (prefix: string) =>
  [
    ...Array.from({ length: 16 }, (_, n) => `${prefix}{p${n}}:ops`),
    ...["a", "b", "c", "d"].map((id) => `${prefix}{cpn_${id}}:coupon`),
    `${prefix}rooms`,
    `${prefix}reconcile:last`,
  ].sort();

/** A prefix of its own and one that starts the same way but is another (its keys must survive). */
function prefixes() {
  const id = randomBytes(4).toString("hex");
  return { ours: `fgt:masters_${id}:`, neighbour: `fgt:masters_${id}x:` };
}

async function write(keys: string[]) {
  await Promise.all(keys.map((key) => redis.set(key, "1", "EX", 600)));
}

async function existing(keys: string[]): Promise<string[]> {
  const found = await Promise.all(keys.map(async (key) => ((await redis.exists(key)) === 1 ? key : null)));
  return found.filter((key): key is string => key !== null);
}

/** The port of the master serving each key, asked of the cluster itself (not through the helpers under test). */
async function mastersHolding(keys: string[]): Promise<Set<number>> {
  if (!isCluster(redis)) return new Set([0]);
  const slots = await redis.cluster("SLOTS");
  const ports = await Promise.all(
    keys.map(async (key) => {
      const slot = (await redis.cluster("KEYSLOT", key)) as number;
      return slots.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    }),
  );
  return new Set(ports);
}

describe("the test Redis of this project", () => {
  it("is the run's cluster in the cluster project, the shared Redis otherwise", async () => {
    expect(isCluster(redis)).toBe(clusterProject);
    expect(await masterConnections(redis)).toHaveLength(clusterProject ? 3 : 1);
  });
});

describe("scanKeys and unlinkMatching", () => {
  it("list and delete a prefix's keys on every master, and keep another prefix's", async () => {
    const { ours, neighbour } = prefixes();
    const mine = keysUnder(ours);
    const theirs = keysUnder(neighbour);
    await write([...mine, ...theirs]);
    try {
      // Spread: one key per master at least, so a scan of one node would miss some.
      expect((await mastersHolding(mine)).size).toBe((await masterConnections(redis)).length);
      expect((await scanKeys(redis, `${ours}*`)).sort()).toEqual(mine);
      expect((await scanKeys(redis, `${ours}{cpn_*}:coupon`, { count: 10 })).sort()).toEqual(
        mine.filter((key) => key.endsWith(":coupon")),
      );
      expect(await countKeys(redis)).toBeGreaterThanOrEqual(mine.length + theirs.length);

      expect(await unlinkMatching(redis, `${ours}*`)).toBe(mine.length);
      expect(await existing(mine)).toEqual([]);
      expect(await scanKeys(redis, `${ours}*`)).toEqual([]);
      expect(await existing(theirs)).toEqual(theirs);
      expect(await unlinkMatching(redis, `${ours}*`)).toBe(0);
    } finally {
      await unlinkMatching(redis, `${neighbour}*`);
    }
  });
});

describe("createTestEnvironment", () => {
  it("uses this project's Redis, and its cleanup deletes the prefix's keys on every master", async () => {
    const env = await createTestEnvironment("redis-masters", { shards: 1 });
    const neighbour = `${env.config.redisPrefix.slice(0, -1)}x:`;
    const mine = keysUnder(env.config.redisPrefix);
    const theirs = keysUnder(neighbour);
    try {
      expect(env.config.redisUrl).toBe(testRedisUrl());
      expect(env.config.redisUrl.startsWith("redis+cluster://")).toBe(clusterProject);
      await write([...mine, ...theirs]);
      expect((await mastersHolding(mine)).size).toBe((await masterConnections(redis)).length);
    } finally {
      await env.cleanup();
    }
    expect(await existing(mine)).toEqual([]);
    expect(await existing(theirs)).toEqual(theirs);
    await unlinkMatching(redis, `${neighbour}*`);
  });
});
