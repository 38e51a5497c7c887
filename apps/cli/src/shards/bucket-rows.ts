// A bucket's rows on a shard, table by table. Every shard table but the shard's own records (shard_identity,
// moved_buckets, the webhook outbox, the events feed, Kysely's migration tables) belongs to users: their bucket is
// bucketForUser(user_id), an order's items follow their order and a payment's refunds their payment. A table this file does not know is refused (listShardTables), so a new
// migration cannot leave a moved bucket's rows behind unnoticed.
import type { ShardDatabase } from "@floodgate/db";
import { bucketForUser } from "@floodgate/shard-router";
import { type Kysely, sql, type Transaction } from "kysely";

type ShardDb = Kysely<ShardDatabase> | Transaction<ShardDatabase>;

/** Tables of users' rows, parents before children (copied in this order, deleted in reverse). */
export const USER_TABLES = [
  "wallets",
  "payments",
  "deposits",
  "issued_coupons",
  "orders",
  "order_items",
  "refunds",
] as const;
export type UserTable = (typeof USER_TABLES)[number];
/** The shard's own records: never moved. */
// The webhook outbox is a queue the relay drains on whichever shard holds it (an event left on the old shard
// is still delivered once), so its rows stay. The events feed's rows stay too: GET /v1/events reads every shard,
// and a cursor's position on this shard would not hold for rows copied to another.
const OWN_TABLES = new Set([
  "shard_identity",
  "moved_buckets",
  "webhook_outbox",
  "events",
  "kysely_migration",
  "kysely_migration_lock",
]);

/** What the verification compares per table: the row count and the sum of a column that moves with money. */
const SUMMED: Record<UserTable, string> = {
  wallets: "balance",
  payments: "amount",
  deposits: "amount",
  issued_coupons: "0",
  orders: "amount",
  order_items: "quantity",
  refunds: "amount",
};

export interface TableTotals {
  table: UserTable;
  rows: number;
  sum: string;
}

export async function listShardTables(db: ShardDb): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1
  `.execute(db);
  const unknown = rows
    .map((r) => r.name)
    .filter((n) => !OWN_TABLES.has(n) && !(USER_TABLES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(`the shard has tables the mover does not know (${unknown.join(", ")}): refusing to move`);
  }
  return rows.map((r) => r.name);
}

/** The users a shard holds rows of, by bucket (one pass over the user tables). */
export async function usersByBucket(db: ShardDb): Promise<Map<number, string[]>> {
  const { rows } = await sql<{ user_id: string }>`
    select user_id from wallets union select user_id from payments union select user_id from deposits
    union select user_id from issued_coupons union select user_id from orders
  `.execute(db);
  const out = new Map<number, string[]>();
  for (const { user_id } of rows) {
    const bucket = bucketForUser(user_id);
    const users = out.get(bucket);
    if (users) users.push(user_id);
    else out.set(bucket, [user_id]);
  }
  return out;
}

// A refund refused before its payment reached the shard has no user (payment_not_found): it stays behind.
const whereUsers = (table: UserTable, users: string[]) =>
  table === "order_items"
    ? sql`order_id in (select id from orders where user_id = any(${users}::text[]))`
    : table === "refunds"
      ? sql`payment_id in (select id from payments where user_id = any(${users}::text[]))`
      : sql`user_id = any(${users}::text[])`;

export async function readRows(
  db: ShardDb,
  table: UserTable,
  users: string[],
): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select * from ${sql.table(table)} where ${whereUsers(table, users)}
  `.execute(db);
  return rows;
}

export async function insertRows(
  trx: Transaction<ShardDatabase>,
  table: UserTable,
  rows: Record<string, unknown>[],
) {
  for (let i = 0; i < rows.length; i += 500) {
    // Rows read by `select *` from the same table on another shard: typed there, not here.
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + 500) as never)
      .execute();
  }
}

/** Deletes the users' rows, children first. */
export async function deleteRows(trx: Transaction<ShardDatabase>, users: string[]): Promise<number> {
  let deleted = 0;
  for (const table of [...USER_TABLES].reverse()) {
    const result = await sql`delete from ${sql.table(table)} where ${whereUsers(table, users)}`.execute(trx);
    deleted += Number(result.numAffectedRows ?? 0);
  }
  return deleted;
}

export async function totals(db: ShardDb, users: string[]): Promise<TableTotals[]> {
  const out: TableTotals[] = [];
  for (const table of USER_TABLES) {
    const { rows } = await sql<{ rows: string; sum: string | null }>`
      select count(*) as rows, sum(${sql.raw(SUMMED[table])})::text as sum from ${sql.table(table)}
      where ${whereUsers(table, users)}
    `.execute(db);
    out.push({ table, rows: Number(rows[0]!.rows), sum: rows[0]!.sum ?? "0" });
  }
  return out;
}

/** The first table whose totals differ, said in one line; undefined when they agree. */
export function totalsDiffer(from: TableTotals[], to: TableTotals[]): string | undefined {
  for (const [i, a] of from.entries()) {
    const b = to[i]!;
    if (a.rows !== b.rows || a.sum !== b.sum) {
      return `${a.table}: ${a.rows} rows (sum ${a.sum}) on the old shard, ${b.rows} rows (sum ${b.sum}) on the new`;
    }
  }
  return undefined;
}
