// `./floodgate migrate`: create missing databases and bring the global database and every shard up to date.
import { config } from "./env.ts";
import { prepareDatabases } from "./prepare-databases.ts";

const log = (line: string) => process.stdout.write(`[floodgate] ${line}\n`);
try {
  await prepareDatabases(config.databaseUrl, config.shardUrls, log);
  log(`done: global + ${config.shardUrls.length} shards`);
} catch (error) {
  process.stderr.write(`[floodgate] migrate failed: ${(error as Error).message}\n`);
  process.exit(1);
}
