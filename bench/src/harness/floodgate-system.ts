// Floodgate under test: `node apps/cli/src/start-command.ts` (what `./floodgate start` runs) as a child, on
// its own port, Redis prefix and databases, restartable with a different worker count for --drain.
import { defaultShardUrls } from "@floodgate/config";
import { ShardSet } from "../audits/shard-set.ts";
import {
  type AuthSetting,
  type BenchIdentity,
  createServerKey,
  NO_IDENTITY,
  type RunSecrets,
  TokenIdentity,
} from "./bench-identity.ts";
import type { BenchTarget } from "./bench-target.ts";
import { freePort, type RunningService, startService } from "./child-service.ts";

/** Configuration variables passed through from the bench's environment to the system (recorded in results). */
const PASSED_THROUGH = [
  "INTAKE_PROCESSES",
  "STREAM_PARTITIONS",
  "WORKER_BATCH_SIZE",
  "WORKER_LINGER_MS",
  "WORKER_NICE",
  "RATE_LIMITS",
  "BACKPRESSURE_SECONDS",
  "LOAD_SHED_LOOP_DELAY_MS",
  "LOAD_SHED_REDIS_WAIT_MS",
  "VISIBILITY_TIMEOUT_MS",
  "MAX_DELIVERIES",
  "CURRENCY",
];

export interface FloodgateSystemConfig {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  logFile: string;
  /** ADMIN_API_KEY and CUSTOMER_TOKEN_SECRET, random per run (bench-identity.ts); recorded masked. */
  secrets: RunSecrets;
  /** AUTH: "on" as deployed; "off" only to measure what verification costs (payments --auth compare). */
  auth: AuthSetting;
  /** Further configuration a scenario needs (e.g. ORDER_TTL_SECONDS); recorded with the rest. */
  extraEnvironment?: Record<string, string>;
  /** Runs the system from another checkout of this repository (payments --compare-checkout); default this one. */
  checkout?: string;
  /** Addresses the system is given instead of the direct ones (e.g. TCP proxies a fault scenario cuts); the
   * bench itself (ShardSet, cleanup) keeps the direct ones. */
  routedUrls?: { redisUrl?: string; databaseUrl?: string; shardUrls?: string[] };
  /** The shards' direct URLs when they are not the default ones beside databaseUrl (e.g. a shard on a server of
   * its own). */
  shardUrls?: string[];
  /** Runs the start command on a host of its own (a network namespace, faults --hosts): through `launcher`,
   * listening on and reached at `address`. */
  placement?: {
    launcher: (file: string, args: string[]) => { file: string; args: string[] };
    address: string;
  };
  /** The workers run apart (faults --hosts starts them on a host of their own): WORKERS=0 here is no backlog
   * on purpose, so backpressure stays as configured. */
  workersApart?: boolean;
}

export class FloodgateSystem {
  readonly config: FloodgateSystemConfig;
  readonly shardUrls: string[];
  readonly shards: ShardSet;
  #port = 0;
  #service: RunningService | null = null;
  #identity: BenchIdentity = NO_IDENTITY;

  constructor(config: FloodgateSystemConfig) {
    this.config = config;
    this.shardUrls = config.shardUrls ?? defaultShardUrls(config.databaseUrl);
    this.shards = new ShardSet(this.shardUrls);
  }

  get target(): BenchTarget {
    return { name: "floodgate", baseUrl: this.baseUrl, shards: this.shards, identity: this.#identity };
  }

  get baseUrl(): string {
    return `http://${this.config.placement?.address ?? "127.0.0.1"}:${this.#port}`;
  }

  /** The start command's pid (its intake and workers are its children); null while stopped. */
  get pid(): number | null {
    return this.#service?.pid ?? null;
  }

  get adminKey(): string {
    return this.config.secrets.adminApiKey;
  }

  /** The shop's server key and the shoppers' tokens (bench-identity.ts); none with AUTH=off. */
  get identity(): BenchIdentity {
    return this.#identity;
  }

  /** Creates the shop's server key through the admin route, once per run (it survives a restart). */
  async authenticate(): Promise<BenchIdentity> {
    if (this.config.auth === "on" && this.#identity === NO_IDENTITY) {
      const key = await createServerKey(this.baseUrl, this.adminKey, "bench shop server");
      this.#identity = new TokenIdentity(this.baseUrl, key);
    }
    return this.#identity;
  }

  /** The environment the system runs with; `masked` hides the secrets (for results). */
  environment(workers: number, masked = false): Record<string, string> {
    const passed = Object.fromEntries(
      PASSED_THROUGH.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
    );
    return {
      // The whole load comes from one address (the bench's): per-IP limits would measure the limiter. Users
      // keep their default per-user limits, as in production.
      RATE_LIMITS: "*.ip=off",
      // Queueing with no worker (--drain) is a backlog on purpose: backpressure would refuse it.
      ...(workers === 0 && !this.config.workersApart ? { BACKPRESSURE_SECONDS: "0" } : {}),
      ...passed,
      PORT: String(this.#port),
      HOST: this.config.placement?.address ?? "127.0.0.1",
      REDIS_URL: this.config.routedUrls?.redisUrl ?? this.config.redisUrl,
      REDIS_PREFIX: this.config.redisPrefix,
      DATABASE_URL: this.config.routedUrls?.databaseUrl ?? this.config.databaseUrl,
      SHARD_URLS: (this.config.routedUrls?.shardUrls ?? this.shardUrls).join(","),
      WORKERS: String(workers),
      LOG_LEVEL: "warn",
      // Per-process /metrics listeners off: fixed ports would collide with a `./floodgate start` running
      // alongside, or with the other system of a paired run.
      WORKER_METRICS_PORT: "0",
      INTAKE_METRICS_PORT: "0",
      // A deployment has no demo sign-in (start turns it on for a loopback HOST unless told otherwise).
      DEMO_LOGIN: "off",
      ...this.config.extraEnvironment,
      AUTH: this.config.auth,
      ADMIN_API_KEY: masked ? "***" : this.config.secrets.adminApiKey,
      CUSTOMER_TOKEN_SECRET: masked ? "***" : this.config.secrets.customerTokenSecret,
    };
  }

  /** Starts (or restarts) the system with `workers` worker processes; resolves when /readyz answers 200. */
  async start(workers: number): Promise<RunningService> {
    await this.stop();
    if (this.#port === 0) this.#port = await freePort();
    this.#service = await startService({
      name: `floodgate (${workers} workers)`,
      script: "apps/cli/src/start-command.ts",
      ...(this.config.checkout ? { checkout: this.config.checkout } : {}),
      env: this.environment(workers),
      port: this.#port,
      ...(this.config.placement
        ? { launcher: this.config.placement.launcher, host: this.config.placement.address }
        : {}),
      readyPath: "/readyz",
      // The first start creates and migrates five databases.
      readyTimeoutMs: 90_000,
      logFile: this.config.logFile,
    });
    return this.#service;
  }

  async stop(): Promise<void> {
    await this.#service?.stop();
    this.#service = null;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.shards.close();
  }
}
