import { type Kysely, sql } from "kysely";

// Coupon definitions, global (not a user's): immutable after creation, so intakes cache them forever. How
// many were issued lives in Redis while the coupon runs, and in the shards' issued_coupons rows after.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("coupons")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("quantity", "integer", (col) => col.notNull().check(sql`quantity > 0`))
    .addColumn("starts_at", "timestamptz")
    .addColumn("ends_at", "timestamptz")
    .addColumn("discount_type", "text", (col) =>
      col.notNull().check(sql`discount_type in ('fixed', 'percent')`),
    )
    .addColumn("discount_value", "bigint", (col) => col.notNull().check(sql`discount_value > 0`))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      "coupons_window_check",
      sql`starts_at is null or ends_at is null or ends_at > starts_at`,
    )
    .addCheckConstraint("coupons_percent_check", sql`discount_type <> 'percent' or discount_value <= 100`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("coupons").ifExists().execute();
}
