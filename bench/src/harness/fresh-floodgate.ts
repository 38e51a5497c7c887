// The setup and teardown every Floodgate scenario shares: a Redis prefix of its own (its keys deleted at the
// end, or on Ctrl-C), the bench databases dropped, the system started with the run's random secrets, the shop's
// server key created through the admin route, and what it ran with for the result.
import { dropDatabases } from "@floodgate/db";
import type { ScenarioContext } from "../scenario.ts";
import { benchEnvironment } from "./bench-environment.ts";
import { type AuthSetting, runSecrets } from "./bench-identity.ts";
import { FloodgateSystem } from "./floodgate-system.ts";
import { registerCleanup } from "./interrupt-cleanup.ts";
import { log } from "./progress-line.ts";
import { deleteKeysWithPrefix } from "./redis-cleanup.ts";
import { type ServiceSettings, serviceSettings } from "./service-settings.ts";

/** The part of a result that says what the system ran with. */
export interface RecordedSystem {
  settings: Record<string, unknown>;
  services: ServiceSettings | null;
}

export interface FreshFloodgate {
  system: FloodgateSystem;
  /** The fixed bench databases' server and Redis (bench-environment.ts). */
  environment: ReturnType<typeof benchEnvironment>;
  /** Drops leftover bench databases, starts the system and creates the server key (auth on); records its
   * environment (secrets masked) and services in `result`. */
  start(workers: number, result: RecordedSystem): Promise<void>;
  /** Stops the system and deletes the run's Redis keys. */
  close(): Promise<void>;
}

export function freshFloodgate(
  context: ScenarioContext,
  options: {
    auth?: AuthSetting;
    extraEnvironment?: Record<string, string>;
    /** A second system running beside the first in the same run (payments --auth compare: "auth_off"): its
     * databases are floodgate_bench_<instance> and its shards, its Redis prefix fgbench:<stamp>-<instance>:. */
    instance?: string;
    /** Its own Redis instead of the bench Redis (payments --redis cluster: a private cluster's URL). */
    redisUrl?: string;
    /** Another checkout of this repository to run it from (payments --compare-checkout). */
    checkout?: string;
  } = {},
): FreshFloodgate {
  const environment = { ...benchEnvironment(), ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}) };
  // One Redis prefix per run (and per system): runs never share keys, and the run's keys are deleted at the end
  // (or on Ctrl-C). An instance's prefix does not start with the first system's, so each cleanup takes its own.
  const redisPrefix = `fgbench:${context.stamp}${options.instance ? `-${options.instance}` : ""}:`;
  const databaseUrl = new URL(environment.floodgateDatabaseUrl);
  if (options.instance) databaseUrl.pathname += `_${options.instance}`;
  const cleanRedis = () => deleteKeysWithPrefix(environment.redisUrl, redisPrefix).catch(() => 0);
  const unregisterCleanup = registerCleanup(cleanRedis);
  const system = new FloodgateSystem({
    databaseUrl: databaseUrl.toString(),
    redisUrl: environment.redisUrl,
    redisPrefix,
    logFile: context.logFile,
    secrets: runSecrets(),
    auth: options.auth ?? "on",
    ...(options.extraEnvironment ? { extraEnvironment: options.extraEnvironment } : {}),
    ...(options.checkout ? { checkout: options.checkout } : {}),
  });
  return {
    system,
    environment,
    async start(workers, result) {
      log(`dropping leftover bench databases, starting Floodgate (log: ${context.logFile})`);
      await dropDatabases([system.config.databaseUrl, ...system.shardUrls]);
      await system.start(workers);
      await system.authenticate();
      result.settings.systemEnvironment = system.environment(workers, true);
      result.services = await serviceSettings(system.shardUrls[0]!, environment.redisUrl);
    },
    async close() {
      await system.close();
      unregisterCleanup();
      const deleted = await cleanRedis();
      log(`removed ${deleted} Redis keys of this run`);
    },
  };
}
