// `./floodgate migrate`: create missing databases and bring the global database and every shard up to date.
import { parseCommandArgs } from "./command-args.ts";

const USAGE = `Usage: ./floodgate migrate [--help]

Creates the databases that are missing (the global one and every shard) and runs the pending migrations on
each, checking that every shard sits at its place in SHARD_URLS.

Options:
  -h, --help   print this text and exit; nothing is created or migrated

Environment: DATABASE_URL (the global database), SHARD_URLS (the shards, in order; default: four named after
DATABASE_URL's database, <name>_shard_0 to _shard_3); see docs/configuration.md. Exit status: 0 done,
1 failed, 2 usage error, 78 configuration error.`;

parseCommandArgs({ prefix: "[floodgate] migrate:", usage: USAGE, options: {} });

// Imported only once the arguments parsed: the configuration is read (and checked) at import.
const { config } = await import("./env.ts");
const { prepareDatabases } = await import("./prepare-databases.ts");

const log = (line: string) => process.stdout.write(`[floodgate] ${line}\n`);
try {
  await prepareDatabases(config.databaseUrl, config.shardUrls, log);
  log(`done: global + ${config.shardUrls.length} shards`);
} catch (error) {
  process.stderr.write(`[floodgate] migrate failed: ${(error as Error).message}\n`);
  process.exit(1);
}
