// Tables of the synchronous baseline: one database, the shards' payments columns plus the idempotency key the
// naive design keeps as a unique column, and wallets funded directly with SQL (its deposits are not measured).
import { createPool } from "@floodgate/db";

const SCHEMA = `
create table if not exists wallets (user_id text primary key, balance bigint not null check (balance >= 0));
create table if not exists payments (
  id text primary key,
  idempotency_key text not null unique,
  user_id text not null,
  amount bigint not null,
  currency text not null,
  status text not null,
  failure_reason text,
  created_at timestamptz not null,
  completed_at timestamptz not null
);`;

/** Creates the tables and gives users bench-user-0 .. bench-user-(users-1) `amount` each. */
export async function prepareBaselineDatabase(url: string, users: number, amount: number): Promise<void> {
  const pool = createPool(url, { max: 1, applicationName: "floodgate-bench-setup" });
  try {
    await pool.query(SCHEMA);
    await pool.query(
      `insert into wallets (user_id, balance)
       select 'bench-user-' || g, $2::bigint from generate_series(0, $1::int - 1) as g
       on conflict (user_id) do update set balance = excluded.balance`,
      [users, amount],
    );
  } finally {
    await pool.end();
  }
}
