// `./floodgate reconcile [--dry-run]`: compare the Redis counters with the databases, report drift and repair
// Redis from Postgres. Exit 0 clean or repaired, 1 drift left (in a dry run: any drift), 2 when it could not
// run (usage, configuration, a store out of reach).
import { ConfigError, loadConfig } from "@floodgate/config";
import { reconcileExitCode, reportLines } from "@floodgate/reconcile";
import { parseCommandArgs } from "./command-args.ts";
import { runReconcile } from "./run-reconcile.ts";

const USAGE = `Usage: ./floodgate reconcile [--dry-run]

Compares the Redis counters (product stock and price, coupon counts, holders and redemption records) with
Postgres, reports each drifted item and repairs Redis from Postgres. Redis is compared only while the queue
is drained; Postgres-side drift is reported for a person to settle.

Options:
  --dry-run    report only; write nothing
  -h, --help   print this text and exit; nothing is read or written

Environment: REDIS_URL, REDIS_PREFIX, STREAM_PARTITIONS, DATABASE_URL, SHARD_URLS; see
docs/configuration.md.

Exit status: 0 clean or repaired, 1 drift left (in a dry run: any drift), 2 usage or configuration error,
or a store out of reach.`;

const args = parseCommandArgs({
  prefix: "[reconcile]",
  usage: USAGE,
  options: { "dry-run": { type: "boolean" } },
});

const out = (line: string) => process.stdout.write(`[reconcile] ${line}\n`);
function fail(message: string): never {
  process.stderr.write(`[reconcile] ${message}\n`);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  fail(error.message);
}

try {
  const report = await runReconcile(config, {
    dryRun: args["dry-run"] === true,
    progress: (line) => process.stderr.write(`[reconcile] ${line}\n`),
  });
  for (const line of reportLines(report)) out(line);
  process.exit(reconcileExitCode(report));
} catch (error) {
  fail(`could not reconcile: ${(error as Error).message}`);
}
