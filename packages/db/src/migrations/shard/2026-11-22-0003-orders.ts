import { type Kysely, sql } from "kysely";

// Orders live on their user's shard, next to the wallet that pays them and the coupon they redeem, so paying
// an order (debit + status) and redeeming a coupon are single-shard transactions. order_items has no foreign
// key to products: products are global, and a key would lock the hot product row for every order.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("orders")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("user_id", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) =>
      col.notNull().check(sql`status in ('awaiting_payment', 'paid', 'cancelled', 'expired', 'failed')`),
    )
    .addColumn("failure_reason", "text")
    .addColumn("amount", "bigint", (col) => col.notNull().check(sql`amount >= 0`))
    .addColumn("discount", "bigint", (col) => col.notNull().defaultTo(0).check(sql`discount >= 0`))
    .addColumn("currency", "text", (col) => col.notNull())
    .addColumn("coupon_issue_id", "text")
    .addColumn("payment_id", "text")
    .addColumn("expires_at", "timestamptz", (col) => col.notNull())
    .addColumn("created_at", "timestamptz", (col) => col.notNull())
    .addColumn("completed_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("orders_user_id_created_at_idx")
    .ifNotExists()
    .on("orders")
    .columns(["user_id", "created_at"])
    .execute();
  await db.schema
    .createTable("order_items")
    .ifNotExists()
    .addColumn("order_id", "text", (col) => col.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("line", "integer", (col) => col.notNull())
    .addColumn("product_id", "text", (col) => col.notNull())
    .addColumn("quantity", "integer", (col) => col.notNull().check(sql`quantity > 0`))
    .addColumn("unit_price", "bigint", (col) => col.notNull().check(sql`unit_price > 0`))
    .addPrimaryKeyConstraint("order_items_pkey", ["order_id", "line"])
    .execute();
  await db.schema.alterTable("issued_coupons").addColumn("order_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("issued_coupons").dropColumn("order_id").execute();
  await db.schema.dropTable("order_items").ifExists().execute();
  await db.schema.dropTable("orders").ifExists().execute();
}
