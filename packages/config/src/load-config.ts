// The one place that reads process.env. Each app calls loadConfig() once at start (src/env.ts) and exits on a
// bad value with a message naming it; everything else receives the typed Config.
import { availableParallelism } from "node:os";
import type { RateLimitPolicies } from "@floodgate/domain";
import { type ConfiguredSigningKey, parseAdmissionSigningKeys } from "./admission-signing-keys.ts";
import { type CustomerJwtSettings, parseCustomerJwt } from "./customer-jwt.ts";
import { ConfigError, envReader } from "./env-reader.ts";
import { parseRateLimits } from "./rate-limits.ts";
import { parseRedisUrl, type RedisTarget } from "./redis-target.ts";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Long enough not to be guessed; visible ASCII so it travels in a header unchanged. */
export const ADMIN_API_KEY_PATTERN = /^[\x21-\x7E]{16,256}$/;
/** The HMAC key of admission tokens: at least 256 bits of visible ASCII. */
export const ADMISSION_TOKEN_SECRET_PATTERN = /^[\x21-\x7E]{32,512}$/;

/** The key of the customer tokens Floodgate mints: at least 256 bits of visible ASCII. */
export const CUSTOMER_TOKEN_SECRET_PATTERN = /^[\x21-\x7E]{32,512}$/;

/** Fastify's trustProxy: false (the socket's address is the client), true, a hop count, or trusted addresses. */
export type TrustProxy = boolean | number | string[];

export interface Config {
  port: number;
  host: string;
  /**
   * REDIS_URL as given: one Redis, or a Redis Cluster's seed nodes. Connections are made from it
   * (`createRedis(config.redisUrl)` parses it), so a test that overrides `redisUrl` moves every connection.
   */
  redisUrl: string;
  /** REDIS_URL parsed at load, so a bad value stops the process at start; derived from redisUrl, never apart. */
  redisTarget: RedisTarget;
  /** Prefix of every Redis key this deployment owns; tests use a unique one per file. */
  redisPrefix: string;
  /**
   * Replicas that must hold an accepted request before its 202 leaves (Redis WAIT, sent with the accepting
   * script in one write); 0 = answer once the master has it, and send nothing more.
   */
  redisWaitReplicas: number;
  /** How long WAIT may take; fewer replicas by then answers 503 "may have been stored", never 202. */
  redisWaitTimeoutMs: number;
  databaseUrl: string;
  shardUrls: string[];
  workers: number;
  /** Niceness of the worker processes `start` runs (0 = same priority as the intake). */
  workerNice: number;
  intakeProcesses: number;
  /** Each intake process's V8 semi-space in MB (`--max-semi-space-size`); 0 leaves Node's default. */
  intakeSemiSpaceMb: number;
  logLevel: LogLevel;
  /** ISO 4217 code of the deployment's currency; amounts are integers in its minor unit. */
  currency: string;
  streamPartitions: number;
  batchSize: number;
  /** How long a worker waits after a small read for more entries to join its batch. */
  lingerMs: number;
  /** An unacknowledged entry idle this long is claimed by another worker (the worker is presumed dead). */
  visibilityTimeoutMs: number;
  /** Deliveries after which a message that keeps failing for a reason of its own is dead-lettered. */
  maxDeliveries: number;
  statusTtlSeconds: number;
  idempotencyTtlSeconds: number;
  /** An order not paid this long after acceptance expires: its stock and coupon return. */
  orderTtlSeconds: number;
  /**
   * Units of one product one user may hold in orders awaiting payment, for a product without a cap of its own
   * (so a few unpaid orders cannot hold a product's whole stock).
   */
  maxUnitsPerUser: number;
  /** First port of the workers' /metrics listeners (worker i listens on base + i); 0 turns them off. */
  workerMetricsPort: number;
  /**
   * First port of the intake processes' own /metrics listeners (intake i listens on base + i); 0 turns them
   * off. The public port's /metrics answers for whichever process took the connection.
   */
  intakeMetricsPort: number;
  /** Set by `./floodgate start` for each intake process it runs (its metrics port is base + index). */
  intakeIndex: number;
  /**
   * Bearer key of the admin routes (coupon definitions); null: the admin routes answer 503 admin_disabled.
   * `./floodgate start` generates one for the run when it is unset.
   */
  adminApiKey: string | null;
  /** Set by `./floodgate start` for each worker process it runs (its metrics port is base + index). */
  workerIndex: number;
  /** Token buckets per route class (RATE_LIMITS over the defaults); the admin API can change them at run time. */
  rateLimits: RateLimitPolicies;
  /** Whom to believe about the client's address (X-Forwarded-For): the IP rate limits key on it. */
  trustProxy: TrustProxy;
  /**
   * HMAC-SHA256 key of waiting-room admission tokens with admissionTokenAlg HS256 (deprecated), shared by every
   * intake process. `./floodgate start`
   * generates one for the run when it is unset; an intake started alone without one makes its own (its tokens
   * are then valid on that process only).
   */
  admissionTokenSecret: string | null;
  /**
   * How admission tokens are signed: ES256 (the default; public keys at /.well-known/jwks.json) or HS256 with
   * admissionTokenSecret (deprecated, kept for one release).
   */
  admissionTokenAlg: "ES256" | "HS256";
  /** ES256 keys from ADMISSION_SIGNING_KEYS (the first signs); null: the global database's keys. */
  admissionSigningKeys: ConfiguredSigningKey[] | null;
  /**
   * Backpressure: when the queued work would take longer than this to drain at the workers' measured rate,
   * guarded routes stop taking new users (a room in `auto` mode starts queueing; without a room, 503). 0: off.
   */
  backpressureSeconds: number;
  /**
   * Load shedding: while an intake process's event loop runs later than this (mean over 100 ms), it admits a
   * shrinking share of API calls and answers the rest 503 busy with Retry-After before any work. 0: off.
   */
  loadShedLoopDelayMs: number;
  /** Load shedding, the other signal: while Redis takes longer than this to answer the intake's commands
   * (mean over 100 ms), the same. 0: off. */
  loadShedRedisWaitMs: number;
  /** A room in `auto` mode stops queueing after this long with an empty queue and traffic under its rate. */
  roomCooldownSeconds: number;
  /**
   * Bounds on every Postgres pool: the server's statement_timeout, the client's own query timeout (for a
   * server too stuck to enforce its own), the connect timeout and the TCP keepalive's first probe.
   */
  postgresTimeouts: { statementMs: number; queryMs: number; connectMs: number; keepAliveMs: number };
  /**
   * On SIGTERM the intake answers /readyz 503 for this long, still serving, so a load balancer stops sending
   * it traffic before it stops accepting connections.
   */
  shutdownDrainSeconds: number;
  /** Web origins whose pages may call the API (the checkout SDK on a shop's site); none by default. */
  corsOrigins: string[];
  /**
   * "on" (the default): every request but health, metrics, the public catalogue and the demo's files must carry
   * a server key, a customer token or (configuration routes) the admin key. "off" must be set explicitly: every
   * caller may then act for any user.
   */
  auth: "on" | "off";
  /**
   * HMAC key of the customer tokens Floodgate mints (POST /v1/customer-sessions), shared by every intake process.
   * `./floodgate start` generates one for the run when unset; an intake started alone makes its own.
   */
  customerTokenSecret: string | null;
  /** Lifetime of a minted customer token when the request names none. */
  customerTokenTtlSeconds: number;
  /** Verified customer tokens each intake process remembers (a lookup instead of a signature check); 0: none. */
  customerTokenCacheSize: number;
  /** The shop's own customer JWTs (CUSTOMER_JWT_*), or null: only Floodgate's tokens are accepted. */
  customerJwt: CustomerJwtSettings | null;
  /** The demo store's sign-in route, which mints a token for any user id: loopback addresses only. */
  demoLogin: boolean;
  /** Webhook deliveries: their concurrency per worker, timeout, retry schedule and address rule. */
  webhooks: WebhookSettings;
  /** Days the events feed (GET /v1/events) keeps an event; the workers delete older ones. */
  eventRetentionDays: number;
}

export interface WebhookSettings {
  /** Deliveries in flight at once per worker process (a slow receiver holds one each). */
  concurrency: number;
  /** Each delivery's request gives up after this long (an attempt that failed; retried). */
  timeoutMs: number;
  /** First retry delay; each next one doubles, capped at 6 h, until about three days have passed. */
  retryBaseMs: number;
  /** Endpoints on private, loopback or link-local addresses are allowed (tests, closed networks). */
  allowPrivate: boolean;
}

export function defaultShardUrls(databaseUrl: string, count = 4): string[] {
  const url = new URL(databaseUrl);
  const base = url.pathname.replace(/^\//, "") || "floodgate";
  return Array.from({ length: count }, (_, i) => {
    const shard = new URL(url);
    shard.pathname = `/${base}_shard_${i}`;
    return shard.toString();
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = envReader(env);
  const databaseUrl = read.url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/floodgate", [
    "postgres:",
    "postgresql:",
  ]);
  const shardUrls = read.urlList("SHARD_URLS", ["postgres:", "postgresql:"]) ?? defaultShardUrls(databaseUrl);
  const host = read.string("HOST", "127.0.0.1", /^[A-Za-z0-9.:_-]+$/);
  const redisUrl = read.optional("REDIS_URL") ?? "redis://127.0.0.1:6379";
  return {
    port: read.int("PORT", 3000, 0, 65535),
    host,
    redisUrl,
    redisTarget: parseRedisUrl(redisUrl),
    redisPrefix: read.string("REDIS_PREFIX", "fg:", /^[A-Za-z0-9:_.-]{1,64}$/),
    redisWaitReplicas: read.int("REDIS_WAIT_REPLICAS", 0, 0, 16),
    redisWaitTimeoutMs: read.int("REDIS_WAIT_TIMEOUT_MS", 1000, 1, 60_000),
    databaseUrl,
    shardUrls,
    workers: read.int("WORKERS", 2, 0, 256),
    workerNice: read.int("WORKER_NICE", 10, 0, 19),
    // One per cpu but one, at least 1 and at most 4: Redis, Postgres and the workers need a cpu of their own when
    // they share the machine. Measured on the 2-vCPU development machine (result files of 2026-11-23, in git history): one intake
    // process answered the coupon drop at p99 20.8-22.0 ms where two took 24.9-29.9 ms, and reached the same
    // highest payment rate (9,380/s against 9,195/s).
    intakeProcesses: read.int(
      "INTAKE_PROCESSES",
      Math.max(1, Math.min(4, availableParallelism() - 1)),
      1,
      256,
    ),
    // An accepted request allocates about 19 KB, and each young-generation collection (a scavenge) costs more
    // than what it copies: twice Node's default young generation (64 MB here) halves their number. Measured
    // (issue 30): two intakes under wrk at once, 0.972x the CPU per request with 128 (8 rounds, all below 1),
    // 0.984x with 256.
    intakeSemiSpaceMb: read.int("INTAKE_SEMI_SPACE_MB", 128, 0, 1024),
    logLevel: read.oneOf("LOG_LEVEL", "info", LOG_LEVELS),
    currency: read.string("CURRENCY", "KRW", /^[A-Z]{3}$/),
    streamPartitions: read.int("STREAM_PARTITIONS", 16, 1, 1024),
    batchSize: read.int("WORKER_BATCH_SIZE", 2000, 1, 10_000),
    lingerMs: read.int("WORKER_LINGER_MS", 250, 0, 1000),
    visibilityTimeoutMs: read.int("VISIBILITY_TIMEOUT_MS", 30_000, 50, 3_600_000),
    maxDeliveries: read.int("MAX_DELIVERIES", 5, 1, 1000),
    statusTtlSeconds: read.int("STATUS_TTL_SECONDS", 3600, 1, 30 * 86400),
    idempotencyTtlSeconds: read.int("IDEMPOTENCY_TTL_SECONDS", 86_400, 1, 30 * 86400),
    orderTtlSeconds: read.int("ORDER_TTL_SECONDS", 600, 1, 7 * 86400),
    maxUnitsPerUser: read.int("MAX_UNITS_PER_USER", 20, 1, 1_000_000),
    workerMetricsPort: read.int("WORKER_METRICS_PORT", 9464, 0, 65535),
    intakeMetricsPort: read.int("INTAKE_METRICS_PORT", 9480, 0, 65535),
    intakeIndex: read.int("FLOODGATE_INTAKE_INDEX", 0, 0, 1024),
    workerIndex: read.int("FLOODGATE_WORKER_INDEX", 0, 0, 1024),
    adminApiKey: read.secret("ADMIN_API_KEY", ADMIN_API_KEY_PATTERN, "16-256 visible ASCII characters"),
    rateLimits: parseRateLimits(read.optional("RATE_LIMITS")),
    trustProxy: parseTrustProxy(read.optional("TRUST_PROXY")),
    admissionTokenSecret: read.secret(
      "ADMISSION_TOKEN_SECRET",
      ADMISSION_TOKEN_SECRET_PATTERN,
      "32-512 visible ASCII characters",
    ),
    admissionTokenAlg: read.oneOf("ADMISSION_TOKEN_ALG", "ES256", ["ES256", "HS256"] as const),
    admissionSigningKeys: parseAdmissionSigningKeys(read.optional("ADMISSION_SIGNING_KEYS")),
    backpressureSeconds: read.int("BACKPRESSURE_SECONDS", 30, 0, 86_400),
    loadShedLoopDelayMs: read.int("LOAD_SHED_LOOP_DELAY_MS", 100, 0, 60_000),
    loadShedRedisWaitMs: read.int("LOAD_SHED_REDIS_WAIT_MS", 100, 0, 60_000),
    roomCooldownSeconds: read.int("ROOM_COOLDOWN_SECONDS", 30, 1, 86_400),
    shutdownDrainSeconds: read.int("SHUTDOWN_DRAIN_SECONDS", 5, 0, 3600),
    corsOrigins: parseOrigins(read.optional("CORS_ORIGINS")),
    auth: read.oneOf("AUTH", "on", ["on", "off"] as const),
    customerTokenSecret: read.secret(
      "CUSTOMER_TOKEN_SECRET",
      CUSTOMER_TOKEN_SECRET_PATTERN,
      "32-512 visible ASCII characters",
    ),
    customerTokenTtlSeconds: read.int("CUSTOMER_TOKEN_TTL_SECONDS", 900, 60, 86_400),
    customerTokenCacheSize: read.int("CUSTOMER_TOKEN_CACHE_SIZE", 100_000, 0, 10_000_000),
    customerJwt: parseCustomerJwt(read),
    demoLogin: parseDemoLogin(read.oneOf("DEMO_LOGIN", "off", ["on", "off"] as const), host),
    postgresTimeouts: readPostgresTimeouts(read),
    webhooks: {
      concurrency: read.int("WEBHOOK_CONCURRENCY", 16, 1, 1000),
      timeoutMs: read.int("WEBHOOK_TIMEOUT_MS", 10_000, 100, 120_000),
      retryBaseMs: read.int("WEBHOOK_RETRY_BASE_MS", 30_000, 100, 3_600_000),
      allowPrivate: read.oneOf("WEBHOOK_ALLOW_PRIVATE", "false", ["true", "false"] as const) === "true",
    },
    eventRetentionDays: read.int("EVENT_RETENTION_DAYS", 30, 1, 3650),
  };
}

function readPostgresTimeouts(read: ReturnType<typeof envReader>): Config["postgresTimeouts"] {
  const statementMs = read.int("PG_STATEMENT_TIMEOUT_MS", 30_000, 100, 3_600_000);
  return {
    statementMs,
    // Longer than the server's own bound, so a merely slow statement is cancelled by the server (57014).
    queryMs: read.int("PG_QUERY_TIMEOUT_MS", statementMs + 5000, 100, 3_600_000),
    connectMs: read.int("PG_CONNECT_TIMEOUT_MS", 5000, 100, 600_000),
    keepAliveMs: read.int("PG_KEEPALIVE_MS", 10_000, 1000, 3_600_000),
  };
}

/** True for the addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

// The demo's sign-in mints a token for whatever user id it is given: on a public address it would hand out
// every shopper's wallet. Refused outright rather than warned about.
function parseDemoLogin(value: "on" | "off", host: string): boolean {
  if (value === "off") return false;
  if (!isLoopbackHost(host)) {
    throw new ConfigError(
      "DEMO_LOGIN",
      `=on signs anyone in as any shopper and is allowed only when HOST is a loopback address (127.0.0.1, ::1, localhost), got HOST=${host}`,
    );
  }
  return true;
}

/** Each entry an origin exactly (scheme, host, port; no path): what a browser sends in Origin. */
function parseOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(",").map((entry) => {
    const origin = entry.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || !["http:", "https:"].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        "CORS_ORIGINS",
        `must be comma-separated origins like https://shop.example or http://localhost:5173, got ${JSON.stringify(origin)}`,
      );
    }
    return origin;
  });
}

const ADDRESS = /^[0-9A-Fa-f.:]+(\/\d{1,3})?$/;

function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const addresses = value.split(",").map((part) => part.trim());
  if (addresses.every((address) => ADDRESS.test(address))) return addresses;
  throw new ConfigError(
    "TRUST_PROXY",
    `must be false, true, a hop count or comma-separated proxy addresses/CIDRs, got ${JSON.stringify(value)}`,
  );
}
