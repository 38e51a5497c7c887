import { type Kysely, type Migration, type MigrationResultSet, Migrator } from "kysely";
import { createKysely } from "./create-database.ts";
import { globalMigrations, shardMigrations } from "./migrations/migration-sets.ts";

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

const redact = (url: string) => {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
};

/** Idempotent: applies what is missing on the global database and every shard, in that order. */
export async function migrateAll(
  databaseUrl: string,
  shardUrls: string[],
  log: (line: string) => void = () => {},
): Promise<void> {
  const targets = [
    { url: databaseUrl, migrations: globalMigrations, label: "global" },
    ...shardUrls.map((url, i) => ({ url, migrations: shardMigrations, label: `shard ${i}` })),
  ];
  for (const target of targets) {
    const db = createKysely<unknown>(target.url, { max: 1, applicationName: "floodgate-migrate" });
    try {
      const applied = await runMigrations(db, target.migrations, `${target.label} (${redact(target.url)})`);
      log(`${target.label}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
    } finally {
      await db.destroy();
    }
  }
}
