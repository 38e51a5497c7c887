// REDIS_WAIT_REPLICAS' confirmations (replica-wait.ts ReplicaConfirmer) on a private master with a replica, never
// the shared Redis: many requests share one fence and WAIT, a write is confirmed only once the replica has it, and
// a confirming connection that was not ready at first serves once it is (it is asked again at each confirmation).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RedisServer, startRedisServer } from "@floodgate/test-fixtures";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedRedis } from "../src/index.ts";
import { ReplicaConfirmer, ReplicaShortfallError } from "../src/replica-wait.ts";

let dir: string | undefined;
let master: RedisServer;
let replica: RedisServer;
let requests: Redis;
const connections: Redis[] = [];

const portOf = (url: string) => Number(new URL(url).port);
const WAIT = { replicas: 1, timeoutMs: 2000 };

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function connect(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  const connection = new Redis(url, { maxRetriesPerRequest: 1, ...options });
  connection.on("error", () => {});
  connections.push(connection);
  return connection;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "replica-confirmer-"));
  [master, replica] = await Promise.all([startRedisServer({ dir }), startRedisServer({ dir })]);
  const replicaClient = connect(replica.url);
  await replicaClient.replicaof("127.0.0.1", portOf(master.url));
  requests = connect(master.url);
  // WAIT counts a replica once the master sees it online (its first acknowledgement after the sync).
  await until(
    async () => /slave0:.*state=online/.test(await requests.info("replication")),
    "the master counting its replica",
  );
});

afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await Promise.all([master?.stop(), replica?.stop()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const waitCalls = async () =>
  Number(/cmdstat_wait:calls=(\d+)/.exec(await requests.info("commandstats"))?.[1] ?? 0);

describe("ReplicaConfirmer", () => {
  it("confirms many requests with far fewer WAITs, each write on the replica when it resolves", async () => {
    const confirmer = new ReplicaConfirmer(connect(master.url), WAIT);
    const replicaReader = connect(replica.url);
    const before = await waitCalls();
    const ids = Array.from({ length: 50 }, (_, i) => `confirm-${i}`);
    await Promise.all(
      ids.map(async (id) => {
        await requests.set(`{p0}:op:${id}`, "stored");
        await confirmer.confirm(requests as ScriptedRedis, "{p0}:ops");
        // Resolved: the replica has this write (a replica answers reads of what it replicated).
        expect(await replicaReader.get(`{p0}:op:${id}`)).toBe("stored");
      }),
    );
    const waits = (await waitCalls()) - before;
    expect(waits).toBeGreaterThanOrEqual(1);
    expect(waits).toBeLessThan(ids.length);
  });

  it("answers unconfirmed while its connection is not ready, and confirms again once it is", async () => {
    const late = connect(master.url, { lazyConnect: true });
    const confirmer = new ReplicaConfirmer(late, { replicas: 1, timeoutMs: 2_000 });
    await requests.set("{p1}:op:late", "stored");
    await expect(confirmer.confirm(requests as ScriptedRedis, "{p1}:ops")).rejects.toBeInstanceOf(
      ReplicaShortfallError,
    );
    await late.connect();
    await expect(confirmer.confirm(requests as ScriptedRedis, "{p1}:ops")).resolves.toBeUndefined();
  });

  it("answers unconfirmed when no replica acknowledges in time", async () => {
    const confirmer = new ReplicaConfirmer(connect(master.url), { replicas: 2, timeoutMs: 2_000 });
    await requests.set("{p2}:op:short", "stored");
    const refused = confirmer.confirm(requests as ScriptedRedis, "{p2}:ops");
    await expect(refused).rejects.toBeInstanceOf(ReplicaShortfallError);
    await expect(refused).rejects.toMatchObject({ wanted: 2, acknowledged: 1 });
  });
});
