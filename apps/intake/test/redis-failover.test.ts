// A Redis Cluster master killed under a steady stream of payments (a private cluster, 3 masters with 2 replicas
// each; never the shared Redis).
// Requests to its slots get 503 with Retry-After while its replica is promoted (no 500, no hang), then 202 again;
// every refused key is retried with its Idempotency-Key until answered. With REDIS_WAIT_REPLICAS=1 every payment
// answered 202 has its stream entry exactly once on the new masters. With 0 a 202 is lost with the master when the
// write it answered for had not reached a replica: the test makes that window certain (the replicas stopped for
// a moment before the kill) instead of waiting for it by chance, and counts what is lost.
import { type Config, loadConfig } from "@floodgate/config";
import { decodeOperationMessage } from "@floodgate/domain";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisCluster,
  startRedisCluster,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { post, waitUntil } from "./support/intake-test-kit.ts";

let cluster: RedisCluster;
let env: TestEnvironment;
let observer: ScriptedRedis;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  // Two replicas per master: with REDIS_WAIT_REPLICAS=1 a promoted replica needs a replica of its own to accept
  // again (with one per master its slots answer 503 until the operator attaches one). A node timeout of 3 s: with
  // 1 s, nine nodes on a loaded 2-core machine could miss each other's pings long enough to mark a node failing
  // (and fail it over) unasked; 3 s still promotes the killed master's replica within seconds.
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 2, nodeTimeoutMs: 3000 });
  env = await createTestEnvironment("redis-failover", { env: { REDIS_URL: cluster.url } });
  observer = createRedis(cluster.url, { name: "failover-observer" });
  observer.on("error", () => {}); // a master is killed on purpose
  await waitForRedis(observer);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  observer?.disconnect();
  await env?.cleanup();
  await cluster?.stop();
});

/**
 * An intake on the cluster with its own key prefix (each case its own keys), REDIS_WAIT_REPLICAS and
 * REDIS_WAIT_TIMEOUT_MS (the default unless given).
 */
async function intake(
  name: string,
  waitReplicas: number,
  waitTimeoutMs = loadConfig({}).redisWaitTimeoutMs,
): Promise<FastifyInstance> {
  const config: Config = {
    ...env.config,
    redisPrefix: `${env.config.redisPrefix}${name}:`,
    redisWaitReplicas: waitReplicas,
    redisWaitTimeoutMs: waitTimeoutMs,
  };
  const app = await buildApp(config, { logger: false });
  apps.push(app);
  await app.ready();
  return app;
}

/**
 * The master serving a key's slot and its live replicas' ports, from CLUSTER NODES (CLUSTER SLOTS leaves out
 * replicas a node has not yet seen healthy).
 */
async function nodesOf(key: string): Promise<{ master: number; replicas: number[] }> {
  const slot = (await observer.cluster("KEYSLOT", key)) as number;
  const nodes = ((await observer.cluster("NODES")) as string)
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.split(" ");
      const port = Number(address!.split("@")[0]!.split(":").pop());
      const serves = slots.some((range) => {
        const [from, to] = range.split("-").map(Number);
        return slot >= from! && slot <= (to ?? from)!;
      });
      return { id, port, flags: flags!.split(","), masterId, serves };
    })
    .filter((node) => !node.flags.includes("fail") && !node.flags.includes("fail?"));
  const master = nodes.find((node) => node.flags.includes("master") && node.serves);
  if (!master) throw new Error(`no master serves slot ${slot}`);
  const replicas = nodes.filter((node) => node.flags.includes("slave") && node.masterId === master.id);
  return { master: master.port, replicas: replicas.map((node) => node.port) };
}

/** Every payment entry of every partition stream, as the cluster's masters hold them now: id -> count. */
async function streamEntries(app: FastifyInstance): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const stream of app.queueKeys.allStreams()) {
    for (const [, fields] of await observer.xrange(stream, "-", "+")) {
      const entryId = fields[fields.indexOf("id") + 1]!;
      const { id } = decodeOperationMessage(fields[fields.indexOf("m") + 1]!, entryId);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** Users whose partitions cover every partition (so the load reaches every master). */
function usersOverEveryPartition(app: FastifyInstance): string[] {
  const byPartition = new Map<number, string>();
  for (let i = 0; byPartition.size < app.config.streamPartitions; i++) {
    const userId = `fo-user-${i}`;
    const partition = app.queueKeys.partitionForUser(userId);
    if (!byPartition.has(partition)) byPartition.set(partition, userId);
  }
  return [...byPartition.values()];
}

interface LoadResult {
  /** Idempotency-Key -> the id its 202 named. */
  accepted: Map<string, string>;
  /** Keys refused with 503 + Retry-After at least once, and so retried. */
  retried: Set<string>;
  /** Statuses other than 202 and 503-with-Retry-After, and answers that never came (none may happen). */
  unexpected: string[];
  /** 503s of keys whose partition lived on the killed master, before and after the kill. */
  refusedOnKilledMaster: number;
  /** Every 503's detail, once each: each must say what became of the request (see expectOutcomeSaid). */
  refusalDetails: Set<string>;
  /** The keys sent to the victim's partition while its replicas were stopped, just before the kill. */
  unreplicated: string[];
}

/**
 * Payments from one user per partition, `concurrency` at a time, each with its own Idempotency-Key; a 503 puts
 * the key back to be retried (same key, same body) after Retry-After. Once `killAfter` keys are answered 202 the
 * crash: the victim master's replicas are stopped (SIGSTOP) and their links dropped while a few more payments go
 * to its partition, so the master holds writes no replica has (the window a real crash hits by chance, made
 * certain), then the master is SIGKILLed and the replicas continue (SIGCONT), one to be promoted. New keys stop once that partition has
 * answered 202 to a payment sent after the kill (a 503 before it is the intake's answer while the slot has no
 * master; the client library may also cover a short gap by itself); the load ends when every key is answered.
 */
async function runLoad(app: FastifyInstance, options: { concurrency: number; killAfter: number }) {
  const users = usersOverEveryPartition(app);
  // A partition whose master still has a replica to promote (an earlier case's kill left one master without).
  let victimUser: string | undefined;
  let victim: { master: number; replicas: number[] } | undefined;
  for (const userId of users) {
    const nodes = await nodesOf(app.queueKeys.stream(app.queueKeys.partitionForUser(userId)));
    if (nodes.replicas.length > 0) {
      [victimUser, victim] = [userId, nodes];
      break;
    }
  }
  if (victimUser === undefined || victim === undefined) throw new Error("no master has a replica left");
  const replicaPids = await Promise.all(victim.replicas.map(pidOf));
  const result: LoadResult = {
    accepted: new Map(),
    retried: new Set(),
    unexpected: [],
    refusedOnKilledMaster: 0,
    refusalDetails: new Set(),
    unreplicated: [],
  };
  // Long enough for a promotion (node timeout 3 s) and the other replica's re-attachment, many times over.
  const giveUpAt = Date.now() + 60_000;
  const pending: { key: string; userId: string; amount: number }[] = [];
  let next = 0;
  let killed: Promise<void> | undefined;
  let masterDead = false;
  let victimBackAfterKill = false;
  const newKey = () => {
    const userId = users[next % users.length]!;
    const item = { key: `fo-${next}`, userId, amount: 1 + (next % 1000) };
    next++;
    return item;
  };

  const send = async (
    item: { key: string; userId: string; amount: number },
    { retry } = { retry: true },
  ): Promise<void> => {
    const sentAfterKill = masterDead;
    // A guard against a hang: the intake must answer within its command and WAIT timeouts (2 s + 1 s).
    let guard: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      post(
        app,
        "/v1/payments",
        { userId: item.userId, amount: item.amount },
        { "idempotency-key": item.key },
      ),
      new Promise<"hung">((resolve) => {
        guard = setTimeout(() => resolve("hung"), 15_000);
      }),
    ]).finally(() => clearTimeout(guard));
    const onVictim =
      app.queueKeys.partitionForUser(item.userId) === app.queueKeys.partitionForUser(victimUser);
    if (answer === "hung") {
      result.unexpected.push(`${item.key}: no answer in 15 s`);
      return;
    }
    if (answer.statusCode === 202) {
      result.accepted.set(item.key, answer.json().id);
      if (sentAfterKill && onVictim) victimBackAfterKill = true;
      if (killed === undefined && result.accepted.size >= options.killAfter) killed = crash();
      return;
    }
    if (answer.statusCode === 503 && answer.headers["retry-after"] !== undefined) {
      if (Date.now() > giveUpAt) {
        result.unexpected.push(`${item.key}: still 503 after 60 s (${answer.json().detail})`);
        return;
      }
      result.retried.add(item.key);
      result.refusalDetails.add(answer.json().detail);
      if (onVictim) {
        result.refusedOnKilledMaster++;
      }
      if (!retry) {
        pending.push(item);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers["retry-after"]) * 200));
      pending.push(item);
      return;
    }
    result.unexpected.push(`${item.key}: ${answer.statusCode} ${answer.body}`);
  };

  const crash = async () => {
    // Stopped replicas would still receive (their kernel buffers the stream), so the master also drops their
    // links: what it takes from here on reaches no replica.
    for (const pid of replicaPids) process.kill(pid, "SIGSTOP");
    try {
      const master = new Redis(victim!.master, "127.0.0.1");
      try {
        await master.client("KILL", "TYPE", "replica");
      } finally {
        master.disconnect();
      }
      const paused = Array.from({ length: 5 }, (_, i) => ({
        key: `fo-unreplicated-${i}`,
        userId: victimUser!,
        amount: 1,
      }));
      result.unreplicated = paused.map((item) => item.key);
      // Answered by the master alone (=0: 202; =1: 503 once WAIT times out): sent, not retried, before the kill.
      await Promise.all(paused.map((item) => send(item, { retry: false })));
      await cluster.killNode(victim!.master);
      masterDead = true;
    } finally {
      for (const pid of replicaPids) process.kill(pid, "SIGCONT");
    }
  };

  const loop = async () => {
    for (;;) {
      const stopNewKeys = victimBackAfterKill || Date.now() > giveUpAt;
      const item = pending.shift() ?? (stopNewKeys ? undefined : newKey());
      if (item === undefined) {
        if (next > 0 && pending.length === 0) return;
        continue;
      }
      await send(item);
      if (result.unexpected.length > 0) return;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  // Every key still pending was handed back by a loop that then ended: answer them too.
  while (pending.length > 0 && result.unexpected.length === 0) await send(pending.shift()!);
  await killed;
  return {
    ...result,
    victim,
    victimUser,
    sent: next + result.unreplicated.length,
    victimBack: victimBackAfterKill,
  };
}

/** A node's process id, asked of the node (the fixture started it; the test may stop and continue it). */
async function pidOf(port: number): Promise<number> {
  const node = new Redis(port, "127.0.0.1");
  try {
    return Number(/process_id:(\d+)/.exec(await node.info("server"))![1]);
  } finally {
    node.disconnect();
  }
}

/**
 * A 503 during a failover tells the client what became of its request: refused before anything was stored, or
 * (no answer in time, replicas short) may or may not have been stored, so the retry with its key finds out.
 */
function expectOutcomeSaid(details: Set<string>) {
  for (const detail of details)
    expect(detail).toMatch(
      /nothing was (stored|done)|was not stored|may or may not (have been stored|survive)/,
    );
}

/** The accepted payments missing from the streams, and those present more than once. */
function compare(accepted: Map<string, string>, entries: Map<string, number>) {
  const ids = [...accepted.values()];
  return {
    missing: ids.filter((id) => !entries.has(id)),
    duplicated: ids.filter((id) => (entries.get(id) ?? 0) > 1),
  };
}

describe("REDIS_WAIT_REPLICAS on a Redis Cluster", () => {
  it("1: a payment's 202 comes after a replica of its master has the entry", async () => {
    // WAIT may take 5 s here: no replica is down, so the default 1 s is only a loaded machine's replication lag
    // away from a 503 (which this case does not retry); a 202 still means WAIT 1 returned.
    const app = await intake("replica", 1, 5000);
    for (const userId of usersOverEveryPartition(app).slice(0, 6)) {
      const response = await post(app, "/v1/payments", { userId, amount: 3 });
      expect(response.statusCode, response.body).toBe(202);
      const stream = app.queueKeys.stream(app.queueKeys.partitionForUser(userId));
      const { replicas } = await nodesOf(stream);
      expect(replicas).toHaveLength(2);
      // The replicas themselves, read at once (READONLY: a replica answers reads of its master's slots): WAIT 1
      // returned, so at least one of them has it.
      const holders = await Promise.all(
        replicas.map(async (port) => {
          const replica = new Redis(port, "127.0.0.1");
          try {
            await replica.readonly();
            const ids = (await replica.xrange(stream, "-", "+")).map(
              ([, fields]) =>
                decodeOperationMessage(fields[fields.indexOf("m") + 1]!, fields[fields.indexOf("id") + 1]!)
                  .id,
            );
            return ids.includes(response.json().id);
          } finally {
            replica.disconnect();
          }
        }),
      );
      expect(holders).toContain(true);
    }
  });

  it("1: a master killed mid-load: 503 + Retry-After while its replica is promoted, then 202; no 202'd payment lost", async () => {
    const app = await intake("wait1", 1);
    const load = await runLoad(app, { concurrency: 12, killAfter: 150 });
    expect(load.unexpected).toEqual([]);
    expectOutcomeSaid(load.refusalDetails);
    // The kill was felt (its partition's requests were refused for a while) and outlived (answered again).
    expect(load.refusedOnKilledMaster).toBeGreaterThan(0);
    expect(load.victimBack).toBe(true);
    expect(load.accepted.size).toBe(load.sent);
    const promoted = await waitUntil(
      () => nodesOf(app.queueKeys.stream(app.queueKeys.partitionForUser(load.victimUser))),
      (nodes) => nodes.master !== load.victim.master,
      "the replica promoted",
    );
    expect(load.victim.replicas).toContain(promoted.master);
    // What the master alone held was never answered 202: WAIT found no replica, so 503, retried after the kill.
    for (const key of load.unreplicated) expect(load.retried).toContain(key);

    const entries = await streamEntries(app);
    expect(compare(load.accepted, entries)).toEqual({ missing: [], duplicated: [] });
    console.info(
      `REDIS_WAIT_REPLICAS=1: ${load.sent} keys, all answered 202 in the end, ${load.retried.size} retried after a 503, ${load.refusedOnKilledMaster} 503s in the killed master's partition, 0 of ${load.accepted.size} 202s lost`,
    );
  }, 180_000);

  it("0: the same crash; the 202s its replicas never got are lost (counted)", async () => {
    const app = await intake("wait0", 0);
    const load = await runLoad(app, { concurrency: 12, killAfter: 150 });
    expect(load.unexpected).toEqual([]);
    expectOutcomeSaid(load.refusalDetails);
    expect(load.victimBack).toBe(true);
    expect(load.accepted.size).toBe(load.sent);

    const entries = await streamEntries(app);
    const { missing, duplicated } = compare(load.accepted, entries);
    // The payments the master answered 202 while no replica could take them died with it; a client holding
    // those 202s (and their ids) has nothing to retry. Anything else that survived is there once.
    const unreplicatedIds = load.unreplicated.map((key) => load.accepted.get(key));
    expect(missing).toEqual(expect.arrayContaining(unreplicatedIds));
    expect(duplicated).toEqual([]);
    console.info(
      `REDIS_WAIT_REPLICAS=0: ${load.sent} keys, ${load.retried.size} retried after a 503, ${missing.length} of ${load.accepted.size} 202s lost with the killed master (${load.unreplicated.length} sent while its replicas were stopped)`,
    );
  }, 180_000);
});
