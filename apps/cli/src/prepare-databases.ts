import { checkShardMap, createKysely, ensureDatabases, type GlobalDatabase, migrateAll } from "@floodgate/db";
import { ShardMap } from "@floodgate/shard-router";

/** Creates missing databases, migrates the global database and every shard, and checks the shard map. */
export async function prepareDatabases(
  databaseUrl: string,
  shardUrls: string[],
  log: (line: string) => void,
) {
  const created = await ensureDatabases([databaseUrl, ...shardUrls]);
  if (created.length > 0) log(`created databases: ${created.join(", ")}`);
  await migrateAll(databaseUrl, shardUrls, (line) => log(`migrate ${line}`));
  const global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-migrate" });
  try {
    await checkShardMap(global, ShardMap.contiguous(shardUrls.length).ranges());
  } finally {
    await global.destroy();
  }
}
