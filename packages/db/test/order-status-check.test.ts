// The refunds migration writes the shard's orders.status CHECK as literals (a migration imports no application
// code), so this compares what a freshly migrated shard enforces with the domain's list: a status added to one
// and not the other fails here instead of on the first order that reaches it.
import { randomBytes } from "node:crypto";
import { STORED_ORDER_STATUSES } from "@floodgate/domain";
import { Migrator, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createKysely } from "../src/create-database.ts";
import { dropDatabases, ensureDatabases } from "../src/ensure-databases.ts";
import { shardMigrations } from "../src/migrations/migration-sets.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const url = (() => {
  const parsed = new URL(SERVER);
  parsed.pathname = `/fgt_orderstatus_${randomBytes(3).toString("hex")}_s0`;
  return parsed.toString();
})();

afterAll(async () => {
  await dropDatabases([url]);
});

describe("orders.status CHECK on a migrated shard", () => {
  it("allows exactly the domain's stored order statuses", async () => {
    await ensureDatabases([url]);
    const db = createKysely<unknown>(url, { max: 1 });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => shardMigrations } });
      const { error } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      const { rows } = await sql<{ definition: string }>`
        select pg_get_constraintdef(oid) as definition from pg_constraint
        where conname = 'orders_status_check' and conrelid = 'orders'::regclass`.execute(db);
      expect(rows).toHaveLength(1);
      const allowed = [...rows[0]!.definition.matchAll(/'([^']+)'/g)].map((match) => match[1]);
      expect(allowed.sort()).toEqual([...STORED_ORDER_STATUSES].sort());
    } finally {
      await db.destroy();
    }
  });
});
