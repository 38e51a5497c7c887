import { ensureDatabases, migrateAll } from "@floodgate/db";

/**
 * Creates missing databases, migrates the global database and every shard (each records its identity), and
 * records the shard map on first start (checked against SHARD_URLS after): all in migrateAll.
 */
export async function prepareDatabases(
  databaseUrl: string,
  shardUrls: string[],
  log: (line: string) => void,
) {
  const created = await ensureDatabases([databaseUrl, ...shardUrls]);
  if (created.length > 0) log(`created databases: ${created.join(", ")}`);
  await migrateAll(databaseUrl, shardUrls, (line) => log(`migrate ${line}`));
}
