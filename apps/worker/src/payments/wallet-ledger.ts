// The wallets of one shard batch's payments and deposits: locked before anything is decided, in user order so
// two workers cannot deadlock, and changed once at the end by each user's total.
import type { ShardDatabase } from "@floodgate/db";
import type { MoneyOperationMessage } from "@floodgate/domain";
import { type RawBuilder, sql, type Transaction } from "kysely";
import type { MoneyDecision } from "./money-decisions.ts";

/** Locks the batch's wallets (creating the depositors' first) and returns their balances. */
export async function lockWallets(trx: Transaction<ShardDatabase>, messages: MoneyOperationMessage[]) {
  const users = [...new Set(messages.map((m) => m.userId))].sort();
  let statements = 0;
  // Only a deposit needs its wallet to exist: a payment from a user without one fails (insufficient funds).
  const depositors = [...new Set(messages.filter((m) => m.kind === "deposit").map((m) => m.userId))].sort();
  if (depositors.length > 0) {
    await sql`insert into wallets (user_id) select u from unnest(${depositors}::text[]) as u order by u
              on conflict (user_id) do nothing`.execute(trx);
    statements += 1;
  }
  const locked = await sql<{ user_id: string; balance: number }>`
    select user_id, balance from wallets where user_id = any(${users}::text[]) order by user_id for update`.execute(
    trx,
  );
  statements += 1;
  return { balances: new Map(locked.rows.map((row) => [row.user_id, row.balance])), statements };
}

/** Each user's total change of the batch's succeeded decisions, the users whose balance does not move left out. */
export function balanceDeltas(decisions: MoneyDecision[]): [userId: string, delta: number][] {
  const deltas = new Map<string, number>();
  for (const d of decisions) {
    if (d.status !== "succeeded") continue;
    const sign = d.message.kind === "deposit" ? 1 : -1;
    deltas.set(d.message.userId, (deltas.get(d.message.userId) ?? 0) + sign * d.message.amount);
  }
  return [...deltas].filter(([, delta]) => delta !== 0);
}

/**
 * The CTE `wallet_rows` (money-write.ts): a conditional update by delta, one row returned per wallet changed.
 * Even if the lock reasoning were wrong, no balance goes below zero (and the CHECK constraint stands behind
 * this): the statement's caller compares the count with the deltas'.
 */
export function balanceUpdateCte(changed: [userId: string, delta: number][]): RawBuilder<unknown> {
  return sql`wallet_rows as (
      update wallets w set balance = w.balance + v.delta, updated_at = now()
      from unnest(${changed.map(([user]) => user)}::text[], ${changed.map(([, delta]) => delta)}::bigint[]) as v(user_id, delta)
      where w.user_id = v.user_id and w.balance + v.delta >= 0
      returning 1
    )`;
}
