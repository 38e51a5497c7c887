import { type Kysely, type Migration, type MigrationResultSet, Migrator } from "kysely";
import { readDeploymentId, recordShardIdentity, verifyShardIdentity } from "./check-shard-identity.ts";
import { checkShardMap } from "./check-shard-map.ts";
import { createKysely } from "./create-database.ts";
import { globalMigrations, shardMigrations } from "./migrations/migration-sets.ts";
import { redactUrl } from "./redact-url.ts";
import type { GlobalDatabase, ShardDatabase } from "./shard-tables.ts";

async function runMigrations(db: Kysely<unknown>, migrations: Record<string, Migration>, where: string) {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${failed} failed on ${where}: ${String(result.error)}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

async function migrateTarget(
  url: string,
  migrations: Record<string, Migration>,
  label: string,
  then: (db: Kysely<unknown>) => Promise<void> = async () => {},
) {
  const db = createKysely<unknown>(url, { max: 1, applicationName: "floodgate-migrate" });
  try {
    const applied = await runMigrations(db, migrations, `${label} (${redactUrl(url)})`);
    await then(db);
    return applied;
  } finally {
    await db.destroy();
  }
}

/**
 * Idempotent: applies what is missing on the global database, then on every shard. The shards are independent
 * databases, so they migrate at once (a start waits for the slowest, not the sum); lines are logged in shard
 * order, and a shard that fails is named after the others have finished.
 * The first run records the shard map (SHARD_URLS' contiguous ranges); later runs check the recorded one.
 * Each shard then records its identity (this deployment, its index in shardUrls) if it has none, and is refused
 * (ShardIdentityError) if it records another: the order of the first migration is the one that counts.
 */
export async function migrateAll(
  databaseUrl: string,
  shardUrls: string[],
  log: (line: string) => void = () => {},
): Promise<void> {
  const described = (label: string, applied: string[]) =>
    `${label}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`;
  let deploymentId = "";
  const global = await migrateTarget(databaseUrl, globalMigrations, "global", async (db) => {
    deploymentId = await readDeploymentId(db as Kysely<GlobalDatabase>, databaseUrl);
    // Before any shard is touched: a recorded map that SHARD_URLS cannot serve is refused here.
    await checkShardMap(db as Kysely<GlobalDatabase>, shardUrls.length);
  });
  log(described("global", global));
  const outcomes = await Promise.allSettled(
    shardUrls.map((url, i) =>
      migrateTarget(url, shardMigrations, `shard ${i}`, async (db) => {
        const shard = db as Kysely<ShardDatabase>;
        await recordShardIdentity(shard, { deploymentId, shard: i });
        await verifyShardIdentity(shard, url, { deploymentId, shard: i });
      }),
    ),
  );
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.status === "fulfilled") log(described(`shard ${i}`, outcome.value));
  }
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
