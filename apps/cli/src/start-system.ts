// What `./floodgate start` does once its arguments parsed (start-command.ts): find (or start) Redis and
// Postgres, migrate, reconcile, then run the intake and WORKERS worker processes in the foreground. Ctrl-C /
// SIGTERM stops them gracefully. Importing this module is starting the system.
import { fileURLToPath } from "node:url";
import { isLoopbackHost, redactRedisUrl } from "@floodgate/config";
import { redactUrl } from "@floodgate/db";
import { developmentServerKey } from "./development-server-key.ts";
import { config } from "./env.ts";
import { prepareDatabases } from "./prepare-databases.ts";
import { ProcessSupervisor } from "./process-supervisor.ts";
import { reconcileAtStart } from "./reconcile-at-start.ts";
import { adminKeyForRun, admissionSecretForRun, customerTokenSecretForRun } from "./run-secrets.ts";
import { findOrStartPostgres } from "./services/find-or-start-postgres.ts";
import { findOrStartRedis } from "./services/find-or-start-redis.ts";
import { durabilityLine, readRedisDurability } from "./services/redis-durability.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const log = (line: string) => process.stdout.write(`[floodgate] ${line}\n`);

let redis: Awaited<ReturnType<typeof findOrStartRedis>>;
let postgres: Awaited<ReturnType<typeof findOrStartPostgres>>;
try {
  redis = await findOrStartRedis({ redisUrl: config.redisUrl, dataDir: `${root}.data/redis`, log });
  postgres = await findOrStartPostgres({
    databaseUrl: config.databaseUrl,
    shardUrls: config.shardUrls,
    dataDir: `${root}.data/postgres`,
    log,
  });
  await prepareDatabases(postgres.databaseUrl, postgres.shardUrls, log);
} catch (error) {
  process.stderr.write(`[floodgate] cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
await reconcileAtStart(
  {
    redisUrl: redis.redisUrl,
    redisPrefix: config.redisPrefix,
    streamPartitions: config.streamPartitions,
    databaseUrl: postgres.databaseUrl,
    shardUrls: postgres.shardUrls,
  },
  log,
);

// On a developer's machine (a loopback HOST) start hands out a server key, so the quick start works in one
// command; on any other address it does not. The demo's sign-in (anyone becomes any shopper) only when asked
// for, --demo or DEMO_LOGIN=on: a loopback HOST can still be reached through a reverse proxy on the machine.
const local = isLoopbackHost(config.host);
const demoLogin = config.demoLogin;
let devKey: { key: string; created: boolean } | null = null;
if (local && config.auth === "on") {
  try {
    devKey = await developmentServerKey(postgres.databaseUrl, `${root}.data/dev-server-key`);
  } catch (error) {
    process.stderr.write(
      `[floodgate] cannot create the development server key: ${(error as Error).message}\n`,
    );
    process.exit(1);
  }
}

const env: NodeJS.ProcessEnv = {
  ...process.env,
  DEMO_LOGIN: demoLogin ? "on" : "off",
  REDIS_URL: redis.redisUrl,
  DATABASE_URL: postgres.databaseUrl,
  SHARD_URLS: postgres.shardUrls.join(","),
};
// Only the intake serves the admin routes and signs admission tokens, so only the intake gets these. Every
// intake process gets the same token secret: a token one signs, the others accept.
const admin = adminKeyForRun(config.adminApiKey);
const admissionSecret = admissionSecretForRun(config.admissionTokenSecret);
const customerSecret = customerTokenSecretForRun(config.customerTokenSecret);
const supervisor = new ProcessSupervisor(log);
for (let i = 0; i < config.intakeProcesses; i++) {
  supervisor.start({
    name: `intake-${i}`,
    script: `${root}apps/intake/src/server.ts`,
    nodeOptions: [`--max-semi-space-size=${config.intakeSemiSpaceMb}`],
    env: {
      ...env,
      // No load balancer polls /readyz on a developer's machine: Ctrl-C need not wait out a drain window.
      ...(local && process.env.SHUTDOWN_DRAIN_SECONDS === undefined ? { SHUTDOWN_DRAIN_SECONDS: "0" } : {}),
      ADMIN_API_KEY: admin.key,
      ADMISSION_TOKEN_SECRET: admissionSecret.key,
      CUSTOMER_TOKEN_SECRET: customerSecret.key,
      // Its own metrics port (INTAKE_METRICS_PORT + i): the shared public port reaches any one process.
      FLOODGATE_INTAKE_INDEX: String(i),
    },
    metricsPortVariable: "INTAKE_METRICS_PORT",
  });
}
for (let i = 0; i < config.workers; i++) {
  supervisor.start({
    name: `worker-${i}`,
    script: `${root}apps/worker/src/main.ts`,
    env: { ...env, FLOODGATE_WORKER_INDEX: String(i) },
    metricsPortVariable: "WORKER_METRICS_PORT",
    // Co-located with the intake, workers yield the CPU to it: a batch burst must not delay the 202s, and a
    // backlog only waits a little longer (it is durable in Redis).
    nice: config.workerNice,
  });
}

const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
log(
  `redis    ${(config.redisTarget.kind === "cluster" ? redactRedisUrl : redactUrl)(redis.redisUrl)}${redis.started ? " (started by floodgate, AOF on)" : ""} prefix ${config.redisPrefix}`,
);
// What a 202 survives on this Redis (docs/operations.md, "What a 202 survives"); a warning when a restart would
// lose them.
const durability = durabilityLine(await readRedisDurability(redis.redisUrl));
if (durability.warn) process.stderr.write(`[floodgate] ${durability.line}\n`);
else log(durability.line);
log(
  `postgres ${redactUrl(postgres.databaseUrl)}${postgres.embedded ? " (embedded)" : ""} + ${postgres.shardUrls.length} shards`,
);
log(`intake   ${base}  (${config.intakeProcesses} process${config.intakeProcesses > 1 ? "es" : ""})`);
log(`         POST ${base}/v1/payments   GET ${base}/readyz   GET ${base}/metrics`);
if (config.intakeMetricsPort > 0) {
  const last = config.intakeMetricsPort + config.intakeProcesses - 1;
  log(
    `         each process's own /metrics on :${config.intakeMetricsPort}${last > config.intakeMetricsPort ? `..${last}` : ""} (scrape these: the shared port reaches any one process)`,
  );
}
log(
  demoLogin
    ? `demo     ${base}/demo/  (a flash sale on one page: sign in as any shopper (--demo / DEMO_LOGIN=on: anyone who reaches this port can; loopback only); paste the admin key below into its admin strip)`
    : `demo     ${base}/demo/  (its sign-in is off: the page cannot sign shoppers in; ./floodgate start --demo turns it on)`,
);
if (config.auth === "off") {
  log(
    "AUTH     OFF: requests are not authenticated; anyone who can reach this address can move anyone's money",
  );
} else if (devKey !== null) {
  log(
    `server   key ${devKey.key} (${devKey.created ? "created" : "kept"} for development in .data/dev-server-key): Authorization: Bearer <key> on POST ${base}/v1/payments`,
  );
} else {
  log(`server   keys: create one with POST ${base}/v1/api-keys {"name": "..."} and the admin key`);
}
log(
  admin.generated
    ? `admin    key ${admin.key} (generated for this run; set ADMIN_API_KEY to choose one): Authorization: Bearer <key> on POST ${base}/v1/coupons`
    : "admin    key from ADMIN_API_KEY: Authorization: Bearer <key> on the admin routes",
);
log(
  config.admissionTokenAlg === "ES256"
    ? `rooms    admission tokens signed with ES256 (${config.admissionSigningKeys === null ? "the global database's keys" : "ADMISSION_SIGNING_KEYS"}), public keys at ${base}/.well-known/jwks.json`
    : admissionSecret.generated
      ? "rooms    admission tokens signed with HS256 (deprecated) and a secret generated for this run (set ADMISSION_TOKEN_SECRET to keep them valid across restarts)"
      : "rooms    admission tokens signed with HS256 (deprecated) and ADMISSION_TOKEN_SECRET",
);
log(
  `workers  ${config.workers}${config.workerMetricsPort ? `, metrics on :${config.workerMetricsPort}..${config.workerMetricsPort + Math.max(0, config.workers - 1)}` : ""}`,
);
log("Ctrl-C stops gracefully");

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping intake and workers (in-flight batches finish and are acknowledged)`);
    await supervisor.stop();
    await postgres.stop();
    await redis.stop();
    log("stopped");
    process.exit(0);
  });
}
