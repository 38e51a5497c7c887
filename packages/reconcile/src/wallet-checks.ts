// Per shard, the money invariant: each wallet's balance = its succeeded deposits - succeeded payments +
// succeeded refunds, and each payment's refunded total = its succeeded refunds (never above its amount: the
// CHECK holds that). The worker writes all of these in one shard transaction, so they hold even mid-batch and
// need no drained queue. Postgres-side drift: reported for a person, never repaired. One query per shard; it
// reads every money row, which a one-shot operator command may.
import { sql } from "kysely";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

export async function checkWallets(stores: ReconcileStores): Promise<DriftFinding[]> {
  const perShard = await Promise.all(
    stores.shards.map(async (db, shard) => {
      const wallets = await sql<{ user_id: string; balance: string; expected: string }>`
        with moves as (
          select user_id, amount from deposits where status = 'succeeded'
          union all select user_id, -amount from payments where status = 'succeeded'
          union all select user_id, amount from refunds where status = 'succeeded'
        ), expected as (select user_id, sum(amount)::bigint as expected from moves group by user_id)
        select coalesce(w.user_id, e.user_id) as user_id, coalesce(w.balance, 0)::bigint as balance,
               coalesce(e.expected, 0)::bigint as expected
        from wallets w full join expected e on e.user_id = w.user_id
        where coalesce(w.balance, 0) <> coalesce(e.expected, 0)`.execute(db);
      const payments = await sql<{ id: string; refunded: string; expected: string }>`
        select p.id, p.refunded::bigint as refunded, coalesce(sum(r.amount), 0)::bigint as expected
        from payments p left join refunds r on r.payment_id = p.id and r.status = 'succeeded'
        group by p.id, p.refunded
        having p.refunded <> coalesce(sum(r.amount), 0)`.execute(db);
      return [
        ...wallets.rows.map(
          (row): DriftFinding => ({
            subject: "wallet",
            id: row.user_id,
            kind: "wallet_balance",
            detail: `shard ${shard} balance ${row.balance} != deposits - payments + refunds ${row.expected}`,
            needsDrained: false,
          }),
        ),
        ...payments.rows.map(
          (row): DriftFinding => ({
            subject: "payment",
            id: row.id,
            kind: "payment_refunded",
            detail: `shard ${shard} refunded ${row.refunded} != succeeded refunds ${row.expected}`,
            needsDrained: false,
          }),
        ),
      ];
    }),
  );
  return perShard.flat();
}
