// The setup and teardown every Floodgate scenario shares: a Redis prefix of its own (its keys deleted at the
// end, or on Ctrl-C), the bench databases dropped, the system started, and what it ran with for the result.
import { dropDatabases } from "@floodgate/db";
import { benchEnvironment } from "./bench-environment.ts";
import { FloodgateSystem, type FloodgateSystemConfig } from "./floodgate-system.ts";
import { registerCleanup } from "./interrupt-cleanup.ts";
import { log } from "./progress-line.ts";
import { deleteKeysWithPrefix } from "./redis-cleanup.ts";
import type { ScenarioContext } from "./scenario.ts";
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
  /** Drops leftover bench databases and starts the system; records its environment and services in `result`. */
  start(workers: number, result: RecordedSystem): Promise<void>;
  /** Stops the system and deletes the run's Redis keys. */
  close(): Promise<void>;
}

export function freshFloodgate(
  context: ScenarioContext,
  options: Pick<FloodgateSystemConfig, "adminApiKey" | "extraEnvironment"> = {},
): FreshFloodgate {
  const environment = benchEnvironment();
  // One Redis prefix per run: runs never share keys, and the run's keys are deleted at the end (or on Ctrl-C).
  const redisPrefix = `fgbench:${context.stamp}:`;
  const cleanRedis = () => deleteKeysWithPrefix(environment.redisUrl, redisPrefix).catch(() => 0);
  const unregisterCleanup = registerCleanup(cleanRedis);
  const system = new FloodgateSystem({
    databaseUrl: environment.floodgateDatabaseUrl,
    redisUrl: environment.redisUrl,
    redisPrefix,
    logFile: context.logFile,
    ...options,
  });
  return {
    system,
    environment,
    async start(workers, result) {
      log(`dropping leftover bench databases, starting Floodgate (log: ${context.logFile})`);
      await dropDatabases([environment.floodgateDatabaseUrl, ...system.shardUrls]);
      await system.start(workers);
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
