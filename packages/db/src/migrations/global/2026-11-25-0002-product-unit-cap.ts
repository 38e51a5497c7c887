import { type Kysely, sql } from "kysely";

// A product's cap on the units one user may hold in orders awaiting payment (issue 17: five unpaid orders of 20
// units held a product's whole stock). Null: the deployment's MAX_UNITS_PER_USER applies, so changing that
// default reaches every product that never had a cap of its own. Kept here so reconcile restores it into Redis
// with the price.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("products")
    .addColumn("max_units_per_user", "integer", (col) => col.check(sql`max_units_per_user > 0`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("products").dropColumn("max_units_per_user").execute();
}
