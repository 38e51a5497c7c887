import { type Kysely, sql } from "kysely";

// Coupons issued to the shard's users. The primary key makes a redelivered issue a no-op; the unique
// (coupon_id, user_id) is the last word on "at most one per user", whatever Redis remembers.
// Status: 'issued' now; 'used' (with used_at) is for the checkout that redeems it later.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("issued_coupons")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("coupon_id", "text", (col) => col.notNull())
    .addColumn("user_id", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) =>
      col.notNull().defaultTo("issued").check(sql`status in ('issued', 'used')`),
    )
    .addColumn("used_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (col) => col.notNull())
    .addColumn("completed_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("issued_coupons_coupon_id_user_id_key", ["coupon_id", "user_id"])
    .execute();
  await db.schema
    .createIndex("issued_coupons_user_id_created_at_idx")
    .ifNotExists()
    .on("issued_coupons")
    .columns(["user_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("issued_coupons").ifExists().execute();
}
