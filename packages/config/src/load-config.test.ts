import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError, defaultShardUrls, loadConfig } from "./index.ts";

describe("loadConfig defaults", () => {
  it("match the documented defaults with an empty environment", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      redisUrl: "redis://127.0.0.1:6379",
      redisPrefix: "fg:",
      redisWaitReplicas: 0,
      redisWaitTimeoutMs: 1000,
      databaseUrl: "postgres://postgres@127.0.0.1:5432/floodgate",
      shardUrls: [0, 1, 2, 3].map((i) => `postgres://postgres@127.0.0.1:5432/floodgate_shard_${i}`),
      workers: 2,
      intakeSemiSpaceMb: 128,
      currency: "KRW",
      logLevel: "info",
      adminApiKey: null,
      orderTtlSeconds: 600,
      postgresTimeouts: { statementMs: 30_000, queryMs: 35_000, connectMs: 5000, keepAliveMs: 10_000 },
      maxUnitsPerUser: 20,
    });
  });

  it("never read process.env when given an environment", () => {
    const saved = process.env.PORT;
    process.env.PORT = "abc";
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it("treat empty and blank values as unset", () => {
    expect(loadConfig({ PORT: "", HOST: "  ", WORKERS: "" })).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      workers: 2,
    });
  });
});

describe("loadConfig reads", () => {
  it("every documented variable", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      REDIS_URL: "rediss://cache.internal:6380/2",
      REDIS_PREFIX: "prod:",
      REDIS_WAIT_REPLICAS: "1",
      REDIS_WAIT_TIMEOUT_MS: "250",
      DATABASE_URL: "postgresql://app@db.internal:5433/money",
      WORKERS: "8",
      WORKER_NICE: "0",
      WORKER_LINGER_MS: "5",
      INTAKE_PROCESSES: "4",
      INTAKE_SEMI_SPACE_MB: "0",
      LOG_LEVEL: "debug",
      CURRENCY: "USD",
      STREAM_PARTITIONS: "32",
      WORKER_BATCH_SIZE: "500",
      VISIBILITY_TIMEOUT_MS: "10000",
      MAX_DELIVERIES: "3",
      STATUS_TTL_SECONDS: "60",
      IDEMPOTENCY_TTL_SECONDS: "120",
      ORDER_TTL_SECONDS: "900",
      MAX_UNITS_PER_USER: "5",
      WORKER_METRICS_PORT: "0",
      FLOODGATE_WORKER_INDEX: "5",
      ADMIN_API_KEY: "k".repeat(16),
      RATE_LIMITS: "off",
      TRUST_PROXY: "1",
      ADMISSION_TOKEN_SECRET: "s".repeat(32),
      ADMISSION_TOKEN_ALG: "HS256",
      BACKPRESSURE_SECONDS: "0",
      LOAD_SHED_LOOP_DELAY_MS: "250",
      LOAD_SHED_REDIS_WAIT_MS: "300",
      ROOM_COOLDOWN_SECONDS: "5",
      SHUTDOWN_DRAIN_SECONDS: "2",
      CORS_ORIGINS: "https://shop.example, http://localhost:5173",
      AUTH: "off",
      CUSTOMER_TOKEN_SECRET: "c".repeat(40),
      CUSTOMER_TOKEN_TTL_SECONDS: "300",
      CUSTOMER_TOKEN_CACHE_SIZE: "5000",
      PG_STATEMENT_TIMEOUT_MS: "8000",
      PG_QUERY_TIMEOUT_MS: "9000",
      PG_CONNECT_TIMEOUT_MS: "2000",
      PG_KEEPALIVE_MS: "5000",
      WEBHOOK_CONCURRENCY: "4",
      WEBHOOK_TIMEOUT_MS: "2500",
      WEBHOOK_RETRY_BASE_MS: "1000",
      WEBHOOK_ALLOW_PRIVATE: "true",
      EVENT_RETENTION_DAYS: "7",
    });
    const noLimit = { user: null, ip: null };
    expect(config).toEqual({
      port: 8080,
      host: "0.0.0.0",
      redisUrl: "rediss://cache.internal:6380/2",
      redisTarget: { kind: "single", url: "rediss://cache.internal:6380/2" },
      redisPrefix: "prod:",
      redisWaitReplicas: 1,
      redisWaitTimeoutMs: 250,
      databaseUrl: "postgresql://app@db.internal:5433/money",
      shardUrls: [0, 1, 2, 3].map((i) => `postgresql://app@db.internal:5433/money_shard_${i}`),
      workers: 8,
      workerNice: 0,
      lingerMs: 5,
      intakeProcesses: 4,
      intakeSemiSpaceMb: 0,
      logLevel: "debug",
      currency: "USD",
      streamPartitions: 32,
      batchSize: 500,
      visibilityTimeoutMs: 10_000,
      maxDeliveries: 3,
      statusTtlSeconds: 60,
      idempotencyTtlSeconds: 120,
      orderTtlSeconds: 900,
      maxUnitsPerUser: 5,
      workerMetricsPort: 0,
      intakeMetricsPort: 9480,
      intakeIndex: 0,
      workerIndex: 5,
      adminApiKey: "k".repeat(16),
      rateLimits: {
        payments: noLimit,
        deposits: noLimit,
        "coupon-issues": noLimit,
        orders: noLimit,
        "room-joins": noLimit,
        "admission-checks": noLimit,
      },
      trustProxy: 1,
      admissionTokenSecret: "s".repeat(32),
      admissionTokenAlg: "HS256",
      admissionSigningKeys: null,
      backpressureSeconds: 0,
      loadShedLoopDelayMs: 250,
      loadShedRedisWaitMs: 300,
      roomCooldownSeconds: 5,
      shutdownDrainSeconds: 2,
      corsOrigins: ["https://shop.example", "http://localhost:5173"],
      auth: "off",
      customerTokenSecret: "c".repeat(40),
      customerTokenTtlSeconds: 300,
      customerTokenCacheSize: 5000,
      customerJwt: null,
      demoLogin: false,
      postgresTimeouts: { statementMs: 8000, queryMs: 9000, connectMs: 2000, keepAliveMs: 5000 },
      webhooks: { concurrency: 4, timeoutMs: 2500, retryBaseMs: 1000, allowPrivate: true },
      eventRetentionDays: 7,
    });
  });

  it("PG_QUERY_TIMEOUT_MS follows PG_STATEMENT_TIMEOUT_MS when unset", () => {
    expect(loadConfig({ PG_STATEMENT_TIMEOUT_MS: "1000" }).postgresTimeouts.queryMs).toBe(6000);
  });

  it("SHARD_URLS as a comma-separated list, trimmed, in order", () => {
    const config = loadConfig({
      SHARD_URLS: " postgres://a@h1:5432/s0 ,postgres://a@h2:5432/s1,postgresql://a@h3/s2 ",
    });
    expect(config.shardUrls).toEqual([
      "postgres://a@h1:5432/s0",
      "postgres://a@h2:5432/s1",
      "postgresql://a@h3/s2",
    ]);
  });

  it("accepts the edges of integer ranges", () => {
    expect(loadConfig({ PORT: "0", WORKERS: "0" })).toMatchObject({ port: 0, workers: 0 });
    expect(loadConfig({ PORT: "65535", WORKERS: "256" })).toMatchObject({ port: 65535, workers: 256 });
    expect(loadConfig({ MAX_UNITS_PER_USER: "1" }).maxUnitsPerUser).toBe(1);
    expect(loadConfig({ MAX_UNITS_PER_USER: "1000000" }).maxUnitsPerUser).toBe(1_000_000);
  });
});

describe("defaultShardUrls", () => {
  it("names the shards after the global database, keeping credentials, host and options", () => {
    expect(defaultShardUrls("postgres://u:p@db:6543/pay?sslmode=require", 2)).toEqual([
      "postgres://u:p@db:6543/pay_shard_0?sslmode=require",
      "postgres://u:p@db:6543/pay_shard_1?sslmode=require",
    ]);
    expect(defaultShardUrls("postgres://u@db:5432")).toEqual(
      [0, 1, 2, 3].map((i) => `postgres://u@db:5432/floodgate_shard_${i}`),
    );
  });
});

describe("a bad value throws ConfigError naming the variable", () => {
  it.each([
    ["PORT", "abc"],
    ["PORT", "-1"],
    ["PORT", "65536"],
    ["PORT", "3000.5"],
    ["PORT", "0x10"],
    ["PORT", "1e3"],
    ["HOST", "local host"],
    ["HOST", "host/path"],
    ["REDIS_URL", "not a url"],
    ["REDIS_URL", "http://127.0.0.1:6379"],
    ["REDIS_PREFIX", "has space:"],
    ["REDIS_PREFIX", "{p1}:"],
    ["REDIS_PREFIX", "p".repeat(65)],
    ["REDIS_WAIT_REPLICAS", "-1"],
    ["REDIS_WAIT_REPLICAS", "17"],
    ["REDIS_WAIT_REPLICAS", "one"],
    ["REDIS_WAIT_TIMEOUT_MS", "0"],
    ["REDIS_WAIT_TIMEOUT_MS", "60001"],
    ["DATABASE_URL", "mysql://root@localhost/floodgate"],
    ["DATABASE_URL", "floodgate"],
    ["SHARD_URLS", "postgres://a@h/s0,,postgres://a@h/s2"],
    ["SHARD_URLS", "postgres://a@h/s0,redis://h"],
    ["SHARD_URLS", "postgres://a@h/s0,nope"],
    ["WORKERS", "two"],
    ["WORKERS", "257"],
    ["INTAKE_PROCESSES", "0"],
    ["INTAKE_SEMI_SPACE_MB", "1025"],
    ["INTAKE_SEMI_SPACE_MB", "64MB"],
    ["LOG_LEVEL", "verbose"],
    ["LOG_LEVEL", "INFO"],
    ["CURRENCY", "krw"],
    ["CURRENCY", "WON!"],
    ["STREAM_PARTITIONS", "0"],
    ["STREAM_PARTITIONS", "1025"],
    ["WORKER_BATCH_SIZE", "0"],
    ["WORKER_LINGER_MS", "1001"],
    ["WORKER_NICE", "20"],
    ["VISIBILITY_TIMEOUT_MS", "10"],
    ["MAX_DELIVERIES", "0"],
    ["STATUS_TTL_SECONDS", "0"],
    ["IDEMPOTENCY_TTL_SECONDS", "-5"],
    ["ORDER_TTL_SECONDS", "0"],
    ["MAX_UNITS_PER_USER", "0"],
    ["MAX_UNITS_PER_USER", "1000001"],
    ["MAX_UNITS_PER_USER", "2.5"],
    ["WORKER_METRICS_PORT", "99999"],
    ["FLOODGATE_WORKER_INDEX", "x"],
    ["ADMIN_API_KEY", "k".repeat(15)],
    ["ADMIN_API_KEY", "k".repeat(257)],
    ["ADMIN_API_KEY", "has a space in it!!"],
    ["ADMIN_API_KEY", "non-ascii-é-key-123"],
    ["RATE_LIMITS", "payments=10/s:20"],
    ["RATE_LIMITS", "payments.user=10/s"],
    ["RATE_LIMITS", "payments.user=10/h:5"],
    ["RATE_LIMITS", "payments.user=0/s:5"],
    ["RATE_LIMITS", "payments.user=5/s:0"],
    ["RATE_LIMITS", "refunds.user=5/s:10"],
    ["RATE_LIMITS", "payments.session=5/s:10"],
    ["RATE_LIMITS", "payments.user=5/s:10,"],
    ["TRUST_PROXY", "yes"],
    ["TRUST_PROXY", "10.0.0.0/8,proxy.local"],
    ["ADMISSION_TOKEN_SECRET", "s".repeat(31)],
    ["ADMISSION_TOKEN_ALG", "RS256"],
    ["ADMISSION_SIGNING_KEYS", "{not json"],
    ["ADMISSION_SIGNING_KEYS", '{"keys": []}'],
    ["ADMISSION_SIGNING_KEYS", '{"keys": [{"kty": "EC", "crv": "P-256", "x": "a", "y": "b"}]}'],
    ["BACKPRESSURE_SECONDS", "-1"],
    ["LOAD_SHED_LOOP_DELAY_MS", "-5"],
    ["LOAD_SHED_REDIS_WAIT_MS", "1.5"],
    ["ROOM_COOLDOWN_SECONDS", "0"],
    ["CORS_ORIGINS", "*"],
    ["CORS_ORIGINS", "https://shop.example/checkout"],
    ["CORS_ORIGINS", "ftp://shop.example"],
  ])("%s=%j", (variable, value) => {
    let caught: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toContain(variable);
  });
});

describe("ADMISSION_TOKEN_ALG and ADMISSION_SIGNING_KEYS", () => {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = privateKey.export({ format: "jwk" });

  it("sign with ES256 from the global database's keys by default", () => {
    expect(loadConfig({})).toMatchObject({ admissionTokenAlg: "ES256", admissionSigningKeys: null });
  });

  it("take a JWK set of P-256 private keys, in order", () => {
    const set = {
      keys: [
        { ...jwk, kid: "2026-11" },
        { ...jwk, kid: "2026-10", use: "sig" },
      ],
    };
    const config = loadConfig({ ADMISSION_SIGNING_KEYS: JSON.stringify(set) });
    const expected = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d };
    expect(config.admissionSigningKeys).toEqual([
      { kid: "2026-11", privateJwk: expected },
      { kid: "2026-10", privateJwk: expected },
    ]);
  });

  it("refuse a public key, a repeated kid and another curve without echoing the private part", () => {
    const refusals = [
      { keys: [{ ...jwk, d: undefined, kid: "a" }] },
      {
        keys: [
          { ...jwk, kid: "a" },
          { ...jwk, kid: "a" },
        ],
      },
      { keys: [{ ...jwk, kid: "a", crv: "P-384" }] },
    ];
    for (const set of refusals) {
      let caught: unknown;
      try {
        loadConfig({ ADMISSION_SIGNING_KEYS: JSON.stringify(set) });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe("ADMISSION_SIGNING_KEYS");
      expect((caught as ConfigError).message).not.toContain(jwk.d);
    }
  });
});

describe("ADMIN_API_KEY", () => {
  it("accepts 16 to 256 visible ASCII characters", () => {
    for (const key of ["a".repeat(16), "A1!~".repeat(64), "sk_live-9f8e7d6c5b4a"]) {
      expect(loadConfig({ ADMIN_API_KEY: key }).adminApiKey).toBe(key);
    }
  });

  it("never repeats a refused key in the error message (it is a secret)", () => {
    const secret = "short-Secret-9";
    expect(() => loadConfig({ ADMIN_API_KEY: secret })).toThrow(ConfigError);
    try {
      loadConfig({ ADMIN_API_KEY: secret });
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
  });
});

describe("RATE_LIMITS", () => {
  it("defaults to a user and an IP bucket on every guarded class, and an IP bucket on room joins", () => {
    const { rateLimits } = loadConfig({});
    expect(rateLimits.payments).toEqual({ user: { rate: 10, burst: 20 }, ip: { rate: 1000, burst: 2000 } });
    expect(rateLimits["room-joins"]).toEqual({ user: null, ip: { rate: 20, burst: 50 } });
  });

  it("changes the defaults entry by entry: per second or minute, fractions, off, * for every class, later wins", () => {
    const { rateLimits } = loadConfig({
      RATE_LIMITS:
        "*.ip=off, payments.user=0.5/s:3, orders.user=120/m:4, coupon-issues.ip=7/s:7, orders.user=off",
    });
    expect(rateLimits.payments).toEqual({ user: { rate: 0.5, burst: 3 }, ip: null });
    expect(rateLimits.orders).toEqual({ user: null, ip: null });
    expect(rateLimits["coupon-issues"]).toEqual({ user: { rate: 5, burst: 10 }, ip: { rate: 7, burst: 7 } });
    expect(rateLimits["room-joins"].ip).toBeNull();
    expect(loadConfig({ RATE_LIMITS: "deposits.user=120/m:4" }).rateLimits.deposits.user).toEqual({
      rate: 2,
      burst: 4,
    });
  });

  it("keeps room joins per IP only: * leaves them out of user limits, and naming them is refused", () => {
    const { rateLimits } = loadConfig({ RATE_LIMITS: "*.user=3/s:6" });
    expect(rateLimits.payments.user).toEqual({ rate: 3, burst: 6 });
    expect(rateLimits["room-joins"]).toEqual({ user: null, ip: { rate: 20, burst: 50 } });
    expect(loadConfig({ RATE_LIMITS: "room-joins.user=off" }).rateLimits["room-joins"].user).toBeNull();
    expect(() => loadConfig({ RATE_LIMITS: "room-joins.user=1/s:1" })).toThrow(
      /RATE_LIMITS.*room-joins is limited per IP only/,
    );
  });
});

describe("TRUST_PROXY", () => {
  it("is false by default, and takes true, a hop count or proxy addresses", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, ::1" }).trustProxy).toEqual(["10.0.0.0/8", "::1"]);
  });
});

describe("identity settings", () => {
  it("require callers to authenticate unless AUTH=off is set explicitly", () => {
    expect(loadConfig({})).toMatchObject({
      auth: "on",
      customerTokenSecret: null,
      customerTokenTtlSeconds: 900,
      customerTokenCacheSize: 100_000,
    });
    expect(loadConfig({ AUTH: "off" }).auth).toBe("off");
    expect(() => loadConfig({ AUTH: "false" })).toThrow(/AUTH must be one of on, off/);
  });

  it("allow the demo's sign-in only on a loopback HOST", () => {
    expect(loadConfig({}).demoLogin).toBe(false);
    expect(loadConfig({ DEMO_LOGIN: "on" }).demoLogin).toBe(true);
    expect(loadConfig({ DEMO_LOGIN: "on", HOST: "::1" }).demoLogin).toBe(true);
    expect(() => loadConfig({ DEMO_LOGIN: "on", HOST: "0.0.0.0" })).toThrow(
      /DEMO_LOGIN.*loopback.*HOST=0\.0\.0\.0/,
    );
  });

  it("take the shop's JWT key from exactly one source, always with an issuer and an audience", () => {
    expect(loadConfig({}).customerJwt).toBeNull();
    const jwks = {
      CUSTOMER_JWT_JWKS_URL: "https://shop.example/jwks.json",
      CUSTOMER_JWT_ISSUER: "https://shop.example",
    };
    expect(() => loadConfig(jwks)).toThrow(/CUSTOMER_JWT_AUDIENCE is required/);
    expect(loadConfig({ ...jwks, CUSTOMER_JWT_AUDIENCE: "floodgate" }).customerJwt).toMatchObject({
      jwksUrl: "https://shop.example/jwks.json",
      issuer: "https://shop.example",
      audience: "floodgate",
    });
    expect(() =>
      loadConfig({ ...jwks, CUSTOMER_JWT_AUDIENCE: "x", CUSTOMER_JWT_SECRET: "s".repeat(40) }),
    ).toThrow(/set exactly one/);
    expect(() => loadConfig({ CUSTOMER_JWT_ISSUER: "x" })).toThrow(/no key is/);
    const secret = {
      CUSTOMER_JWT_SECRET: "s".repeat(40),
      CUSTOMER_JWT_ISSUER: "shop",
      CUSTOMER_JWT_AUDIENCE: "fg",
    };
    expect(loadConfig(secret).customerJwt?.algorithms).toEqual(["HS256"]);
    expect(() => loadConfig({ ...secret, CUSTOMER_JWT_ALGORITHMS: "none" })).toThrow(
      /CUSTOMER_JWT_ALGORITHMS/,
    );
    expect(() => loadConfig({ ...secret, CUSTOMER_JWT_ALGORITHMS: "RS256" })).toThrow(
      /CUSTOMER_JWT_ALGORITHMS/,
    );
  });

  it("never repeat a refused secret", () => {
    expect(() => loadConfig({ CUSTOMER_TOKEN_SECRET: "short-secret" })).toThrow(
      /CUSTOMER_TOKEN_SECRET must be/,
    );
    expect(() => loadConfig({ CUSTOMER_TOKEN_SECRET: "short-secret" })).not.toThrow(/short-secret/);
  });
});
