// The intake's budget, measured on the running system: Redis commands per accepted payment (its own counters,
// redis-round-trips.ts) and the Postgres queries its connections ran meanwhile (intake-postgres-watch.ts), for
// payments sent the way the run sends them (customer tokens with auth on, nothing with AUTH=off).
import { loadConfig } from "@floodgate/config";
import type { FloodgateSystem } from "./floodgate-system.ts";
import { type IntakePostgresActivity, watchIntakePostgres } from "./intake-postgres-watch.ts";
import { KeepAliveClient } from "./keep-alive-client.ts";
import { benchUserId } from "./payment-requests.ts";
import { log } from "./progress-line.ts";
import { measureRoundTrips, type RoundTrips } from "./redis-round-trips.ts";

export interface IntakeBudget {
  auth: "on" | "off";
  redis: RoundTrips;
  postgres: IntakePostgresActivity;
  /** 1 Redis command per accepted payment and no intake query to Postgres. */
  held: boolean;
}

export const budgetHeld = (redis: RoundTrips, postgres: IntakePostgresActivity): boolean =>
  redis.accepted > 0 && redis.perAccepted === 1 && postgres.connectionsThatQueried === 0;

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
      intakeProcesses: intakeProcesses(system, options.workers),
      payments: options.payments,
      userId: (i) => benchUserId(i % options.users),
      identity: system.identity,
      keyPrefix: options.keyPrefix,
      parallel: 50,
    });
  } finally {
    client.close();
  }
  const postgres = await watch.stop();
  return { auth: system.config.auth, redis, postgres, held: budgetHeld(redis, postgres) };
}
