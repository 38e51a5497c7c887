// createRedis against a real Redis Cluster of 3 masters and 3 replicas (a private one, on free ports): the
// client follows the slot map, so keys of different hash tags land on different masters; a defined script
// runs on the slot of its key; pub/sub and BullMQ's connections work through it too; a killed master is replaced
// by its replica and the client writes to its slots again. And the fixture leaves nothing running.
import { execFileSync } from "node:child_process";
import { holdLease } from "@floodgate/redis-scripts";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createJobQueueConnection,
  createRedis,
  createSubscriber,
  type RedisConnection,
  type ScriptedRedis,
  waitForRedis,
} from "../src/index.ts";

let cluster: RedisCluster;
let redis: ScriptedRedis;
const opened: RedisConnection[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  redis = createRedis(cluster.url, { name: "cluster-test" });
  opened.push(redis);
  await waitForRedis(redis);
});

afterAll(async () => {
  for (const connection of opened) connection.disconnect();
  await cluster?.stop();
});

/** Which master serves a key, asked of the cluster itself. */
async function masterOf(key: string): Promise<number> {
  const slot = (await redis.cluster("KEYSLOT", key)) as number;
  const ranges = await redis.cluster("SLOTS");
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range?.[2]) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

describe("createRedis with a redis+cluster:// URL", () => {
  it("builds a cluster client over 3 masters and 3 replicas", () => {
    expect(redis).toBeInstanceOf(Cluster);
    expect(redis.status).toBe("ready");
    expect(cluster.masters).toHaveLength(3);
    expect(cluster.replicas).toHaveLength(3);
  });

  it("writes and reads keys that land on every master", async () => {
    // The first hash tags that cover all three masters ({a}, {b}, {c} usually do).
    const keyOn = new Map<number, string>();
    for (let i = 0; keyOn.size < 3 && i < 100; i++) {
      const key = `cluster-test:{${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ""}}:value`;
      const master = await masterOf(key);
      if (!keyOn.has(master)) keyOn.set(master, key);
    }
    expect([...keyOn.keys()].sort()).toEqual([...cluster.masters].sort());
    for (const [master, key] of keyOn) await redis.set(key, `on-${master}`);
    for (const [master, key] of keyOn) {
      expect(await redis.get(key)).toBe(`on-${master}`);
      // And the value really is on that master, not wherever the client happened to be connected.
      const direct = new Redis(master, "127.0.0.1", { lazyConnect: true });
      try {
        await direct.connect();
        expect(await direct.get(key)).toBe(`on-${master}`);
      } finally {
        direct.disconnect();
      }
    }
  });

  it("runs a defined Lua script on its key's slot", async () => {
    const lease = "cluster-test:{b}:lease";
    const hold = (holderId: string) => holdLease.run(redis, { leaseKey: lease, holderId, leaseMs: 60_000 });
    expect(await hold("holder-1")).toEqual({ held: true });
    expect(await hold("holder-2")).toEqual({ held: false });
    expect(await hold("holder-1")).toEqual({ held: true });
    expect(await redis.get(lease)).toBe("holder-1");
  });

  it("refuses a multi-key command across slots, as a cluster must", async () => {
    await expect(redis.mget("cluster-test:{a}:x", "cluster-test:{b}:x")).rejects.toThrow(/CROSSSLOT|slot/i);
  });

  it("subscribes through createSubscriber and hears a publish", async () => {
    const subscriber = createSubscriber(cluster.url, "cluster-test-subscriber");
    opened.push(subscriber);
    expect(subscriber).toBeInstanceOf(Cluster);
    const heard = new Promise<string>((resolve) =>
      subscriber.on("message", (_, message) => resolve(message)),
    );
    await subscriber.subscribe("cluster-test:events");
    await redis.publish("cluster-test:events", "hello");
    expect(await heard).toBe("hello");
  });

  it("gives BullMQ a cluster connection too", async () => {
    const connection = createJobQueueConnection(cluster.url, { name: "cluster-test-bull", blocking: true });
    opened.push(connection);
    expect(connection).toBeInstanceOf(Cluster);
    await waitForRedis(connection);
    expect(await connection.ping()).toBe("PONG");
  });
});

describe("a master killed (killNode)", () => {
  it("is replaced by its replica, and the client writes to the slot again", async () => {
    const key = "cluster-test:{c}:after-failover";
    const victim = await masterOf(key);
    await cluster.killNode(victim);
    // Until the replica is promoted and the client has the new slot map, writes to the slot fail (fast).
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await redis.set(key, "written");
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(await redis.get(key)).toBe("written");
    const promoted = await masterOf(key);
    expect(promoted).not.toBe(victim);
    expect(cluster.replicas).toContain(promoted);
  });
});

describe("createRedis with a redis:// URL", () => {
  it("still builds a client of one Redis", async () => {
    const single = createRedis("redis://127.0.0.1:6379", { name: "cluster-test-single" });
    opened.push(single);
    expect(single).toBeInstanceOf(Redis);
    expect(single).not.toBeInstanceOf(Cluster);
    await waitForRedis(single);
    expect(await single.ping()).toBe("PONG");
  });
});

describe("startRedisCluster's stop()", () => {
  it("leaves no redis-server of its ports running", async () => {
    const ports = [...cluster.masters, ...cluster.replicas];
    for (const connection of opened) connection.disconnect();
    opened.length = 0;
    await cluster.stop();
    const running = (() => {
      try {
        return execFileSync("pgrep", ["-a", "redis-server"], { encoding: "utf8" });
      } catch {
        return ""; // pgrep exits 1 when nothing matches
      }
    })();
    for (const port of ports) expect(running).not.toMatch(new RegExp(`:${port}\\b`));
  });
});
