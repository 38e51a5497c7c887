import { type Kysely, sql } from "kysely";

// How each endpoint's deliveries are signed, and the secret a rotation replaced.
//
// signature_scheme: the endpoints that exist when this runs get 'floodgate-signature' (Floodgate-Signature
// t=,v1=, what their receivers verify today); only then does the default become 'standard-webhooks', so an
// endpoint created afterwards gets the Standard Webhooks headers. A shop switches an endpoint with PATCH. The
// values are literals (a migration imports no application code); a test compares them with the domain's list.
//
// previous_secret: the secret before the last POST .../rotate-secret, which signs beside the new one until
// secret_rotated_at + 24 h (the worker decides with the database's clock). Stored as the secret is (see
// 2026-11-26-0101-webhooks.ts: an HMAC key cannot be hashed), and cleared once it no longer signs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("webhook_endpoints")
    .addColumn("signature_scheme", "text", (col) =>
      col
        .notNull()
        .defaultTo("floodgate-signature")
        .check(sql`signature_scheme in ('standard-webhooks', 'floodgate-signature')`),
    )
    .addColumn("previous_secret", "text")
    .addColumn("secret_rotated_at", "timestamptz")
    .execute();
  await db.schema
    .alterTable("webhook_endpoints")
    .alterColumn("signature_scheme", (col) => col.setDefault("standard-webhooks"))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("webhook_endpoints")
    .dropColumn("signature_scheme")
    .dropColumn("previous_secret")
    .dropColumn("secret_rotated_at")
    .execute();
}
