// The intake's budget, measured on the running system: Redis commands per accepted payment (its own counters,
// redis-round-trips.ts) and the Postgres queries its connections ran meanwhile (intake-postgres-watch.ts), for
// payments sent the way the run sends them (customer tokens with auth on, nothing with AUTH=off).
import { loadConfig } from "@floodgate/config";
import { SHARD_MAP_POLL_MS } from "@floodgate/db";
import type { FloodgateSystem } from "../harness/floodgate-system.ts";
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { formatCount, log } from "../harness/progress-line.ts";
import { type IntakePostgresActivity, watchIntakePostgres } from "./intake-postgres-watch.ts";
import { measureRoundTrips, type RoundTrips } from "./redis-round-trips.ts";

/**
 * The server-key cache's reload (apps/intake/src/auth/server-key-cache.ts): at start, after a resubscription and
 * once a minute in each intake process, whatever the traffic. It is the cache's upkeep, not a request's query.
 */
const KEY_CACHE_RELOAD = /from "api_keys"/;
const KEY_CACHE_RELOAD_EVERY_MS = 60_000;

/**
 * The shard map's version poll (packages/db shard-map-watch.ts): one one-row read every SHARD_MAP_POLL_MS in each
 * intake process, whatever the traffic (and the map itself when the version moved), so a read follows a moved
 * bucket. Like the key cache's reload, the process's upkeep, not a request's query: counted against its timer.
 */
const SHARD_MAP_POLL = /from "shard_map(_version)?"/;

/**
 * The databases' probe (apps/intake/src/health/store-probes.ts): `select 1` on each pool when /readyz is asked
 * or /metrics is scraped (floodgate_shard_up), as this measurement itself scrapes /metrics before and after its
 * payments. Asked for by the operator's tools, never by a request: reported, not counted against the budget.
 */
const HEALTH_PROBE = /^\s*select 1\s*$/i;

export interface PostgresBudget extends IntakePostgresActivity {
  /** Queries seen that were neither the key cache's reload nor a health probe: must be 0. */
  requestQueries: number;
  /** `select 1` probes of /readyz and the /metrics scrapes (floodgate_shard_up). */
  healthProbes: number;
  /** The key cache's reloads seen, and how many its once-a-minute timer allows in the watch. */
  keyCacheReloads: number;
  keyCacheReloadsAllowed: number;
  /** The shard map's polls seen, and how many its timer allows in the watch. */
  shardMapPolls: number;
  shardMapPollsAllowed: number;
}

export interface IntakeBudget {
  auth: "on" | "off";
  redis: RoundTrips;
  postgres: PostgresBudget;
  /**
   * At most 1 Redis round trip per accepted payment (its script, shared with the requests of the same turn, and
   * at most one command sent beside it in the same turn: a client address's token) and no intake query to Postgres but the key cache's timer.
   */
  held: boolean;
}

export const isKeyCacheReload = (query: string): boolean => KEY_CACHE_RELOAD.test(query);
export const isHealthProbe = (query: string): boolean => HEALTH_PROBE.test(query);
export const isShardMapPoll = (query: string): boolean => SHARD_MAP_POLL.test(query);

type QueryKind = "reload" | "probe" | "map" | "request";
const kindOf = (query: string): QueryKind =>
  isKeyCacheReload(query)
    ? "reload"
    : isHealthProbe(query)
      ? "probe"
      : isShardMapPoll(query)
        ? "map"
        : "request";

export function postgresBudget(activity: IntakePostgresActivity, processes: number): PostgresBudget {
  const count = (kind: QueryKind) =>
    activity.queries.filter((q) => kindOf(q.query) === kind).reduce((sum, q) => sum + q.seen, 0);
  return {
    ...activity,
    requestQueries: count("request"),
    healthProbes: count("probe"),
    keyCacheReloads: count("reload"),
    keyCacheReloadsAllowed: processes * (1 + Math.ceil(activity.watchedMs / KEY_CACHE_RELOAD_EVERY_MS)),
    shardMapPolls: count("map"),
    // A version read per tick, and the map's two reads when it moved: three per tick at most.
    shardMapPollsAllowed: processes * 3 * (1 + Math.ceil(activity.watchedMs / SHARD_MAP_POLL_MS)),
  };
}

export const budgetHeld = (redis: RoundTrips, postgres: PostgresBudget): boolean =>
  redis.accepted > 0 &&
  // Fewer than one when requests arriving together share a script call (@floodgate/redis-scripts turn-batches.ts).
  redis.perAccepted !== null &&
  redis.perAccepted <= 1 &&
  redis.parallelCommands <= redis.accepted &&
  postgres.requestQueries === 0 &&
  postgres.keyCacheReloads <= postgres.keyCacheReloadsAllowed &&
  postgres.shardMapPolls <= postgres.shardMapPollsAllowed;

/** Intake processes behind the system's port (their counters are summed). */
export const intakeProcesses = (system: FloodgateSystem, workers: number): number =>
  loadConfig(system.environment(workers)).intakeProcesses;

export async function measureIntakeBudget(options: {
  system: FloodgateSystem;
  workers: number;
  users: number;
  payments: number;
  keyPrefix: string;
}): Promise<IntakeBudget> {
  const { system } = options;
  const processes = intakeProcesses(system, options.workers);
  log(
    `counting Redis round trips and Postgres queries for ${options.payments} payments (auth ${system.config.auth})`,
  );
  const client = new KeepAliveClient(system.baseUrl, 50);
  const watch = await watchIntakePostgres([system.config.databaseUrl, ...system.shardUrls]);
  let redis: RoundTrips;
  try {
    redis = await measureRoundTrips({
      client,
      baseUrl: system.baseUrl,
      intakeProcesses: processes,
      payments: options.payments,
      userId: (i) => benchUserId(i % options.users),
      identity: system.identity,
      keyPrefix: options.keyPrefix,
      parallel: 50,
    });
  } finally {
    client.close();
  }
  const postgres = postgresBudget(await watch.stop(), processes);
  return { auth: system.config.auth, redis, postgres, held: budgetHeld(redis, postgres) };
}

export function budgetLine(name: string, budget: IntakeBudget): string {
  const { redis, postgres } = budget;
  const reloads =
    postgres.keyCacheReloads === 0
      ? ""
      : ` (besides ${postgres.keyCacheReloads} reload(s) of the server-key cache, its once-a-minute timer, at most ${postgres.keyCacheReloadsAllowed})`;
  const polls =
    postgres.shardMapPolls === 0
      ? ""
      : ` (besides ${postgres.shardMapPolls} shard-map poll(s), a timer every ${SHARD_MAP_POLL_MS} ms per process, at most ${postgres.shardMapPollsAllowed})`;
  const probes =
    postgres.healthProbes === 0
      ? ""
      : ` (besides ${postgres.healthProbes} select 1 health probe(s) of the /metrics scrapes and /readyz)`;
  const others = postgres.queries
    .filter((q) => kindOf(q.query) === "request")
    .map((q) => `${q.seen} x ${q.query || "(connection opened)"}`);
  const queries =
    postgres.requestQueries === 0
      ? `0 Postgres queries from the intake's ${postgres.connections} connections${reloads}${polls}${probes}`
      : `${postgres.requestQueries} Postgres queries seen from the intake (${others.join(" | ")})${reloads}${polls}${probes}`;
  const commands =
    redis.parallelCommands === 0
      ? `${formatCount(redis.redisCommands)} commands`
      : `${formatCount(redis.redisCommands)} commands, ${formatCount(redis.parallelCommands)} of them sent beside a script in its round trip: ${redis.commandsPerAccepted ?? "n/a"} commands per accepted payment`;
  return `${name}: intake budget (auth ${budget.auth}) over ${formatCount(redis.payments)} payments, ${formatCount(redis.accepted)} accepted: ${redis.perAccepted ?? "n/a"} Redis round trips per accepted payment (${commands}), ${queries}: ${budget.held ? "held" : "NOT held"}`;
}
