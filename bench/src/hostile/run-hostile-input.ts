// Runs the hostile-input suite on its own: `node bench/src/hostile/run-hostile-input.ts [--quick]`. Starts a
// Floodgate (2 intake processes, 1 worker) on databases of its own (floodgate_hostile*, not the bench's
// fixed floodgate_bench*, which a bench running alongside drops), runs the suite, prints the result as JSON
// and stops everything: the system, its databases and its Redis keys. --quick: small sizes, for development.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabases } from "@floodgate/db";
import { benchEnvironment } from "../harness/bench-environment.ts";
import { runSecrets } from "../harness/bench-identity.ts";
import { stopAllServices } from "../harness/child-service.ts";
import { FloodgateSystem } from "../harness/floodgate-system.ts";
import { log } from "../harness/progress-line.ts";
import { deleteKeysWithPrefix } from "../harness/redis-cleanup.ts";
import { hostileInputPhase } from "./hostile-input-phase.ts";
import type { HostileInputSizes } from "./hostile-input-suite.ts";
import { summary } from "./hostile-input-suite.ts";

const QUICK: Partial<HostileInputSizes> = {
  websockets: 250,
  badUpgrades: 100,
  slowHeaders: { sockets: 20, capMs: 100_000 },
  auditDeadlineMs: 30_000,
};

const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "Z");
process.env.INTAKE_PROCESSES ??= "2";
const environment = benchEnvironment();
const databaseUrl = new URL(environment.floodgateDatabaseUrl);
databaseUrl.pathname = "/floodgate_hostile";
const redisPrefix = `fghostile:${stamp}:`;
const logFile = join(tmpdir(), `floodgate-hostile-${stamp}.log`);
const system = new FloodgateSystem({
  databaseUrl: databaseUrl.toString(),
  redisUrl: environment.redisUrl,
  redisPrefix,
  logFile,
  secrets: runSecrets(),
  auth: "on",
});
const databases = [system.config.databaseUrl, ...system.shardUrls];

let cleaning: Promise<void> | undefined;
const cleanUp = () => {
  cleaning ??= (async () => {
    await system.close().catch(() => {});
    await stopAllServices();
    await dropDatabases(databases).catch((e: Error) => log(`dropping databases: ${e.message}`));
    const deleted = await deleteKeysWithPrefix(environment.redisUrl, redisPrefix).catch(() => 0);
    log(`stopped Floodgate, dropped its databases, removed ${deleted} Redis keys`);
  })();
  return cleaning;
};
process.once("SIGINT", () => void cleanUp().then(() => process.exit(130)));

let exitCode = 1;
try {
  log(`starting Floodgate (INTAKE_PROCESSES=${process.env.INTAKE_PROCESSES}; log: ${logFile})`);
  await dropDatabases(databases);
  const service = await system.start(1);
  await system.authenticate();
  const phase = hostileInputPhase(process.argv.includes("--quick") ? QUICK : {});
  const result = await phase.run({ system, supervisorPid: service.pid });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  for (const probe of result.probes) log(summary(probe));
  log(
    `crashes ${result.crashes.length}, accepted ${result.accepted}, accepted-and-lost ${result.acceptedAndLost}, ` +
      `fds ${Object.values(result.fdBefore)
        .map((c) => {
          const after = result.fdAfter[c.pid];
          return `${c.pid}: ${c.fds} -> ${after ? `${after.fds} (${after.orphanedSockets} orphaned sockets)` : "gone"}`;
        })
        .join(", ")}`,
  );
  log(result.passed ? "PASSED" : `FAILED: ${result.failures.join("; ")}`);
  exitCode = result.passed ? 0 : 1;
} catch (error) {
  log(`hostile input could not run: ${(error as Error).stack ?? error}`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
