// The migration that brought signature schemes: an endpoint that existed before it keeps Floodgate-Signature
// (its shop's receiver goes on verifying), one created after gets Standard Webhooks; and the CHECK it writes as
// literals allows exactly the domain's schemes.
import { randomBytes } from "node:crypto";
import { WEBHOOK_SIGNATURE_SCHEMES } from "@floodgate/domain";
import { type Kysely, Migrator, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createKysely } from "../src/create-database.ts";
import { dropDatabases, ensureDatabases } from "../src/ensure-databases.ts";
import { globalMigrations } from "../src/migrations/migration-sets.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const url = (() => {
  const parsed = new URL(SERVER);
  parsed.pathname = `/fgt_sigscheme_${randomBytes(3).toString("hex")}_g`;
  return parsed.toString();
})();

afterAll(async () => {
  await dropDatabases([url]);
});

const insertEndpoint = (db: Kysely<unknown>, id: string) =>
  sql`insert into webhook_endpoints (id, url, events, secret)
      values (${id}, 'https://shop.example/h', '{payment.succeeded}', 'whsec_x')`.execute(db);

describe("2026-11-28-0101-webhook-signature-schemes", () => {
  it("gives existing endpoints floodgate-signature and new ones standard-webhooks", async () => {
    await ensureDatabases([url]);
    const db = createKysely<unknown>(url, { max: 1 });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => globalMigrations } });
      expect((await migrator.migrateTo("2026-11-26-0301-shard-moves")).error).toBeUndefined();
      await insertEndpoint(db, "whe_before");
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await insertEndpoint(db, "whe_after");
      const { rows } = await sql<{ id: string; signature_scheme: string; previous_secret: string | null }>`
        select id, signature_scheme, previous_secret from webhook_endpoints order by id`.execute(db);
      expect(rows).toEqual([
        { id: "whe_after", signature_scheme: "standard-webhooks", previous_secret: null },
        { id: "whe_before", signature_scheme: "floodgate-signature", previous_secret: null },
      ]);
      const check = await sql<{ definition: string }>`
        select pg_get_constraintdef(oid) as definition from pg_constraint
        where conrelid = 'webhook_endpoints'::regclass and contype = 'c'
          and pg_get_constraintdef(oid) like '%signature_scheme%'`.execute(db);
      expect(check.rows).toHaveLength(1);
      const allowed = [...check.rows[0]!.definition.matchAll(/'([^']+)'/g)].map((match) => match[1]);
      expect(allowed.sort()).toEqual([...WEBHOOK_SIGNATURE_SCHEMES].sort());
    } finally {
      await db.destroy();
    }
  });
});
