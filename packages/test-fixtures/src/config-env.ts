import type { Config } from "@floodgate/config";
import { ROUTE_CLASSES } from "@floodgate/domain";

/** RATE_LIMITS that reproduces the config's policies exactly. */
function rateLimitsToEnv(config: Config): string {
  return ROUTE_CLASSES.flatMap((routeClass) =>
    (["user", "ip"] as const).map((scope) => {
      const bucket = config.rateLimits[routeClass][scope];
      return `${routeClass}.${scope}=${bucket === null ? "off" : `${bucket.rate}/s:${bucket.burst}`}`;
    }),
  ).join(",");
}

/** The environment that makes a child process (intake or worker) load exactly this config. */
export function configToEnv(config: Config): Record<string, string> {
  return {
    PORT: String(config.port),
    HOST: config.host,
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: config.redisPrefix,
    DATABASE_URL: config.databaseUrl,
    SHARD_URLS: config.shardUrls.join(","),
    WORKERS: String(config.workers),
    LOG_LEVEL: config.logLevel,
    CURRENCY: config.currency,
    STREAM_PARTITIONS: String(config.streamPartitions),
    WORKER_BATCH_SIZE: String(config.batchSize),
    WORKER_LINGER_MS: String(config.lingerMs),
    VISIBILITY_TIMEOUT_MS: String(config.visibilityTimeoutMs),
    MAX_DELIVERIES: String(config.maxDeliveries),
    STATUS_TTL_SECONDS: String(config.statusTtlSeconds),
    IDEMPOTENCY_TTL_SECONDS: String(config.idempotencyTtlSeconds),
    ORDER_TTL_SECONDS: String(config.orderTtlSeconds),
    MAX_UNITS_PER_USER: String(config.maxUnitsPerUser),
    WORKER_METRICS_PORT: String(config.workerMetricsPort),
    INTAKE_METRICS_PORT: String(config.intakeMetricsPort),
    RATE_LIMITS: rateLimitsToEnv(config),
    TRUST_PROXY: Array.isArray(config.trustProxy) ? config.trustProxy.join(",") : String(config.trustProxy),
    BACKPRESSURE_SECONDS: String(config.backpressureSeconds),
    LOAD_SHED_LOOP_DELAY_MS: String(config.loadShedLoopDelayMs),
    LOAD_SHED_REDIS_WAIT_MS: String(config.loadShedRedisWaitMs),
    ROOM_COOLDOWN_SECONDS: String(config.roomCooldownSeconds),
    PG_STATEMENT_TIMEOUT_MS: String(config.postgresTimeouts.statementMs),
    PG_QUERY_TIMEOUT_MS: String(config.postgresTimeouts.queryMs),
    PG_CONNECT_TIMEOUT_MS: String(config.postgresTimeouts.connectMs),
    PG_KEEPALIVE_MS: String(config.postgresTimeouts.keepAliveMs),
    SHUTDOWN_DRAIN_SECONDS: String(config.shutdownDrainSeconds),
    ...(config.corsOrigins.length > 0 ? { CORS_ORIGINS: config.corsOrigins.join(",") } : {}),
    ...(config.adminApiKey === null ? {} : { ADMIN_API_KEY: config.adminApiKey }),
    ...(config.admissionTokenSecret === null ? {} : { ADMISSION_TOKEN_SECRET: config.admissionTokenSecret }),
    ADMISSION_TOKEN_ALG: config.admissionTokenAlg,
    ...(config.admissionSigningKeys === null
      ? {}
      : {
          ADMISSION_SIGNING_KEYS: JSON.stringify({
            keys: config.admissionSigningKeys.map(({ kid, privateJwk }) => ({ ...privateJwk, kid })),
          }),
        }),
    AUTH: config.auth,
    ...(config.customerTokenSecret === null ? {} : { CUSTOMER_TOKEN_SECRET: config.customerTokenSecret }),
    CUSTOMER_TOKEN_TTL_SECONDS: String(config.customerTokenTtlSeconds),
    CUSTOMER_TOKEN_CACHE_SIZE: String(config.customerTokenCacheSize),
    DEMO_LOGIN: config.demoLogin ? "on" : "off",
    WEBHOOK_CONCURRENCY: String(config.webhooks.concurrency),
    WEBHOOK_TIMEOUT_MS: String(config.webhooks.timeoutMs),
    WEBHOOK_RETRY_BASE_MS: String(config.webhooks.retryBaseMs),
    WEBHOOK_ALLOW_PRIVATE: String(config.webhooks.allowPrivate),
    EVENT_RETENTION_DAYS: String(config.eventRetentionDays),
    ...customerJwtToEnv(config),
  };
}

function customerJwtToEnv(config: Config): Record<string, string> {
  const jwt = config.customerJwt;
  if (jwt === null) return {};
  return {
    ...(jwt.jwksUrl !== undefined ? { CUSTOMER_JWT_JWKS_URL: jwt.jwksUrl } : {}),
    ...(jwt.publicKeyPem !== undefined ? { CUSTOMER_JWT_PUBLIC_KEY: jwt.publicKeyPem } : {}),
    ...(jwt.secret !== undefined ? { CUSTOMER_JWT_SECRET: jwt.secret } : {}),
    CUSTOMER_JWT_ISSUER: jwt.issuer,
    CUSTOMER_JWT_AUDIENCE: jwt.audience,
    CUSTOMER_JWT_ALGORITHMS: jwt.algorithms.join(","),
  };
}
