import { type Kysely, sql } from "kysely";

// Products are global. `stock` is what is left after every persisted order (CHECK: never below zero); the
// Redis counter `available` runs ahead of it by the orders still in the queue.
// stock_movements is the ledger that makes the per-batch stock update exactly once: a worker inserts one row
// per (order, product, direction) and moves stock only by the rows it actually inserted, so a redelivered
// batch moves nothing. Live orders' quantities = reserve rows - release rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("products")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("price", "bigint", (col) => col.notNull().check(sql`price > 0`))
    .addColumn("stock", "bigint", (col) => col.notNull().check(sql`stock >= 0`))
    // Every unit ever put on sale (creation + PATCH stockAdded): received = stock + reserved - released.
    .addColumn("received", "bigint", (col) => col.notNull().check(sql`received >= stock`))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("stock_movements")
    .ifNotExists()
    .addColumn("order_id", "text", (col) => col.notNull())
    .addColumn("product_id", "text", (col) => col.notNull())
    .addColumn("direction", "text", (col) => col.notNull().check(sql`direction in ('reserve', 'release')`))
    .addColumn("quantity", "integer", (col) => col.notNull().check(sql`quantity > 0`))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("stock_movements_pkey", ["order_id", "product_id", "direction"])
    .execute();
  await db.schema
    .createIndex("stock_movements_product_id_idx")
    .ifNotExists()
    .on("stock_movements")
    .column("product_id")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("stock_movements").ifExists().execute();
  await db.schema.dropTable("products").ifExists().execute();
}
