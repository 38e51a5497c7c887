import { type Kysely, sql } from "kysely";

// The ES256 keys that sign waiting-room admission tokens, the same in every intake process. The private key
// is stored as it must be used (a JWK: a signing key cannot be hashed), so the global database is as secret as
// ADMISSION_TOKEN_SECRET was. generation orders the keys and makes the first one agreed on: every intake (and
// `migrate`) inserts generation 1 if absent, and the one that lands is the one all of them read.
// signs_from: a rotated key is published (and verifies) at once but signs only from then on, so every intake
// and every shop's cached JWKS knows it before any token carries it.
// superseded_at: when the next key started signing; this one is published until its last tokens expired.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("admission_signing_keys")
    .ifNotExists()
    .addColumn("generation", "integer", (col) => col.primaryKey())
    .addColumn("kid", "text", (col) => col.notNull().unique())
    .addColumn("private_jwk", "jsonb", (col) => col.notNull())
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("signs_from", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("superseded_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("admission_signing_keys").ifExists().execute();
}
