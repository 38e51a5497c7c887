import { type Kysely, sql } from "kysely";

// GET /v1/orders walks every shard newest first, (created_at, id) descending, from a cursor: this index lets a
// page read its rows in order and stop after them, instead of sorting the whole table. `id` in the "C"
// collation, as the listing compares it: byte order, which is the order the intake merges the shards' pages
// in, whatever collation the database was created with. A user's listing has its own index already
// (orders_user_id_created_at_idx); a user's orders are few enough to sort.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists orders_created_at_id_idx
            on orders (created_at desc, (id collate "C") desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_created_at_id_idx`.execute(db);
}
