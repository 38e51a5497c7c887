// The faults of `./floodgate bench faults`, in the order a full run injects them, each with the model it uses
// (recorded in the result: what was actually done to the system) and how to inject it. Redis restarts come
// last: the one without persistence empties Redis, and the suite puts `always` back after it.

import { createPool } from "@floodgate/db";
import { Redis } from "ioredis";
import type { FaultRig } from "./fault-rig.ts";
import { REDIS_ALWAYS, REDIS_NONE } from "./fault-rig.ts";
import { childPids } from "./process-tree.ts";

export const FAULT_NAMES = [
  "worker-kill",
  "intake-kill",
  "redis-unreachable",
  "shard-stopped",
  "shard-frozen",
  "shard-read-only",
  "global-db-restart",
  "shard-slow",
  "overload",
  "redis-restart-always",
  "redis-restart-everysec",
  "redis-restart-none",
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];

/** Seconds each timed fault lasts (the values are the defaults). */
export interface FaultTimings {
  redisUnreachable: number;
  shardStopped: number;
  shardFrozen: number;
  shardReadOnly: number;
  globalDbDown: number;
  shardSlow: number;
  shardSlowMs: number;
  overload: number;
  /** A host partitioned (--hosts). */
  partition: number;
  /** A shard's host link slow and lossy (--hosts). */
  slowLink: number;
}

export interface FaultContext {
  rig: FaultRig;
  timings: FaultTimings;
  /** The overload fault's burst (overload-session.ts) for `seconds`, beside the shop's steady load; returns
   * notes. */
  burst(seconds: number): Promise<string[]>;
}

export interface Fault {
  name: FaultName;
  model: string;
  /** Seconds the fault is meant to last (0: an instant event such as a kill). */
  seconds(timings: FaultTimings): number;
  /** Before the phase's load starts (e.g. the Redis setting the restart is measured under). */
  prepare?(rig: FaultRig): Promise<void>;
  /** Injects the fault, waits its duration, ends it; returns notes of what happened. */
  inject(context: FaultContext): Promise<string[]>;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
/** The shard the shard faults hit (of 4). */
const FAULTED_SHARD = 1;

async function redisConfig(rig: FaultRig, ...pairs: [string, string][]): Promise<void> {
  const redis = new Redis(rig.redis.url, { maxRetriesPerRequest: 3 });
  try {
    for (const [name, value] of pairs) await redis.config("SET", name, value);
  } finally {
    redis.disconnect();
  }
}

/** kill -9 of redis-server, then a start on the same port with `persistence`; returns the notes. */
async function restartRedis(rig: FaultRig, persistence: readonly string[]): Promise<string[]> {
  const started = Date.now();
  await rig.redis.kill();
  await rig.redis.start(persistence);
  return [
    `redis-server SIGKILLed and started again: back in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  ];
}

async function killChild(rig: FaultRig, role: "intake" | "worker"): Promise<string[]> {
  const pids = childPids(rig.supervisorPid, role);
  const victim = pids[0];
  if (victim === undefined) throw new Error(`no ${role} process found under pid ${rig.supervisorPid}`);
  process.kill(victim, "SIGKILL");
  return [
    `SIGKILL to ${role} pid ${victim} (one of ${pids.length}); the start command's supervisor restarts it`,
  ];
}

/** Runs `sql` on the shard's Postgres server (the maintenance database, directly, not through a proxy). */
async function onShardServer(rig: FaultRig, sql: string, params: unknown[] = []): Promise<number> {
  const url = new URL(rig.shardUrls[FAULTED_SHARD]!);
  url.pathname = "/postgres";
  const pool = createPool(url.toString(), { max: 1, applicationName: "floodgate-bench" });
  try {
    return (await pool.query(sql, params)).rowCount ?? 0;
  } finally {
    await pool.end();
  }
}

const shardDatabase = (rig: FaultRig): string =>
  new URL(rig.shardUrls[FAULTED_SHARD]!).pathname.replace(/^\//, "");

/** Ends every session on the faulted shard's database but the bench's own reads. */
const terminateShardSessions = (rig: FaultRig): Promise<number> =>
  onShardServer(
    rig,
    `select pg_terminate_backend(pid) from pg_stat_activity
      where datname = $1 and pid <> pg_backend_pid() and application_name <> 'floodgate-bench'`,
    [shardDatabase(rig)],
  );

export const FAULTS: readonly Fault[] = [
  {
    name: "worker-kill",
    model:
      "SIGKILL of one of the worker processes mid-load; the supervisor restarts it; its unacknowledged entries are claimed by the others after VISIBILITY_TIMEOUT_MS",
    seconds: () => 0,
    inject: ({ rig }) => killChild(rig, "worker"),
  },
  {
    name: "intake-kill",
    model:
      "SIGKILL of one of two intake processes (INTAKE_PROCESSES=2, one port with SO_REUSEPORT); clients on its connections see socket errors and retry",
    seconds: () => 0,
    inject: ({ rig }) => killChild(rig, "intake"),
  },
  {
    name: "redis-unreachable",
    model:
      "the TCP proxy in front of Redis cuts every connection and refuses new ones, then lets them through again",
    seconds: (t) => t.redisUnreachable,
    async inject({ rig, timings }) {
      await rig.redisProxy.down();
      await sleep(timings.redisUnreachable);
      await rig.redisProxy.up();
      return [];
    },
  },
  {
    name: "shard-stopped",
    model: `the TCP proxy in front of shard ${FAULTED_SHARD} cuts every connection and refuses new ones (a stopped server), then lets them through again`,
    seconds: (t) => t.shardStopped,
    async inject({ rig, timings }) {
      const proxy = rig.shardProxies[FAULTED_SHARD]!;
      await proxy.down();
      await sleep(timings.shardStopped);
      await proxy.up();
      return [];
    },
  },
  {
    name: "shard-frozen",
    model: `the TCP proxy in front of shard ${FAULTED_SHARD} holds what clients send and what the server answers (what SIGSTOP does to its clients: connections stay open, nothing moves), then delivers both in order`,
    seconds: (t) => t.shardFrozen,
    async inject({ rig, timings }) {
      const proxy = rig.shardProxies[FAULTED_SHARD]!;
      proxy.holdRequests();
      proxy.holdReplies();
      await sleep(timings.shardFrozen);
      const notes = [
        `held ${proxy.heldRequestBytes()} bytes of requests and ${proxy.heldReplyBytes()} bytes of replies`,
      ];
      proxy.releaseRequests();
      proxy.releaseReplies();
      return notes;
    },
  },
  {
    name: "shard-read-only",
    model: `ALTER DATABASE <shard ${FAULTED_SHARD}> SET default_transaction_read_only = on and its sessions terminated (they reconnect read-only); at the end RESET and its sessions terminated again`,
    seconds: (t) => t.shardReadOnly,
    async inject({ rig, timings }) {
      const database = shardDatabase(rig);
      await onShardServer(rig, `alter database "${database}" set default_transaction_read_only = on`);
      const cut = await terminateShardSessions(rig);
      await sleep(timings.shardReadOnly);
      await onShardServer(rig, `alter database "${database}" reset default_transaction_read_only`);
      const cutAgain = await terminateShardSessions(rig);
      return [`${cut} sessions terminated when it went read-only, ${cutAgain} when it came back`];
    },
  },
  {
    name: "global-db-restart",
    model:
      "the TCP proxy in front of the global database cuts every connection and refuses new ones for the fault's seconds (a restart as its clients see it; the shared Postgres itself is not restarted)",
    seconds: (t) => t.globalDbDown,
    async inject({ rig, timings }) {
      await rig.globalProxy.down();
      await sleep(timings.globalDbDown);
      await rig.globalProxy.up();
      return [];
    },
  },
  {
    name: "shard-slow",
    model: `the TCP proxy in front of shard ${FAULTED_SHARD} delivers every reply late by the fault's delay (each round trip that much slower)`,
    seconds: (t) => t.shardSlow,
    async inject({ rig, timings }) {
      const proxy = rig.shardProxies[FAULTED_SHARD]!;
      proxy.delayReplies(timings.shardSlowMs);
      await sleep(timings.shardSlow);
      proxy.delayReplies(0);
      return [`every reply of shard ${FAULTED_SHARD} delayed ${timings.shardSlowMs} ms`];
    },
  },
  {
    name: "overload",
    model:
      "an open-loop burst of POST /v1/payments from its own funded users (raw pipelined keep-alive sockets on a thread of the bench) at --overload-factor (5) x the sustainable rate measured before the faults, or --overload-rate, for the fault's seconds, while the shop clients keep their steady rate",
    seconds: (t) => t.overload,
    inject: ({ timings, burst }) => burst(timings.overload),
  },
  {
    name: "redis-restart-always",
    model:
      "redis-server (AOF, appendfsync always) SIGKILLed under load and started again on the same port and files",
    seconds: () => 0,
    inject: ({ rig }) => restartRedis(rig, REDIS_ALWAYS),
  },
  {
    name: "redis-restart-everysec",
    model:
      "CONFIG SET appendfsync everysec before the load, then redis-server SIGKILLed and started again on the same files (a process crash: the kernel still writes what Redis wrote; a machine crash could lose up to the last second, not measured here); appendfsync always restored after",
    seconds: () => 0,
    prepare: (rig) => redisConfig(rig, ["appendfsync", "everysec"]),
    async inject({ rig }) {
      const notes = await restartRedis(rig, [
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
      ]);
      await redisConfig(rig, ["appendfsync", "always"]);
      return notes;
    },
  },
  {
    name: "redis-restart-none",
    model:
      "CONFIG SET appendonly no before the load, then redis-server SIGKILLed and started without persistence (empty); AOF with appendfsync always turned back on after",
    seconds: () => 0,
    prepare: (rig) => redisConfig(rig, ["appendonly", "no"]),
    async inject({ rig }) {
      const notes = await restartRedis(rig, REDIS_NONE);
      await redisConfig(rig, ["appendonly", "yes"], ["appendfsync", "always"]);
      return [...notes, "Redis came back empty (streams, idempotency keys and statuses gone)"];
    },
  },
];

export function findFault(name: FaultName): Fault {
  const fault = FAULTS.find((candidate) => candidate.name === name);
  if (!fault) throw new Error(`unknown fault ${name}`);
  return fault;
}
