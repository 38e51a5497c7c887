import { ensureAdmissionSigningKey } from "@floodgate/auth";
import { createKysely, ensureDatabases, type GlobalDatabase, migrateAll } from "@floodgate/db";

/**
 * Creates missing databases, migrates the global database and every shard (each records its identity), and
 * records the shard map on first start (checked against SHARD_URLS after): all in migrateAll. Then the first
 * admission signing key, if there is none (a migration imports no application code, so it is made here; every
 * intake inserts it if absent too, with the same primary key, so all agree on one).
 */
export async function prepareDatabases(
  databaseUrl: string,
  shardUrls: string[],
  log: (line: string) => void,
) {
  const created = await ensureDatabases([databaseUrl, ...shardUrls]);
  if (created.length > 0) log(`created databases: ${created.join(", ")}`);
  await migrateAll(databaseUrl, shardUrls, (line) => log(`migrate ${line}`));
  const db = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-migrate" });
  try {
    if (await ensureAdmissionSigningKey(db)) log("made the first admission signing key (keys list shows it)");
  } finally {
    await db.destroy();
  }
}
