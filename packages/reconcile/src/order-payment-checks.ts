// Per shard, the paid orders by the way they were paid, counted apart: from a wallet (a succeeded `payments`
// row, which the wallet invariant counts: wallet-checks.ts) or at the shop's payment provider (a succeeded
// first `provider_payments` row, which moves no wallet and so is in no balance). Each paid order (refunded ones
// were paid) must name exactly such a payment of its own, and each such provider payment its order: Postgres-
// side drift, reported for a person. One query per shard.
import { sql } from "kysely";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

/** Orders paid, by how: their wallet-invariant share and the share no wallet sees. */
export interface PaidOrderCounts {
  wallet: number;
  provider: number;
}

export async function checkOrderPayments(
  stores: ReconcileStores,
): Promise<{ findings: DriftFinding[]; paidOrders: PaidOrderCounts }> {
  const perShard = await Promise.all(
    stores.shards.map(async (db, shard) => {
      const rows = await sql<{ id: string; way: "wallet" | "provider" | "none"; detail: string | null }>`
        with paid as (
          select o.id, o.payment_id, o.provider, o.provider_reference,
                 exists (select 1 from payments p where p.id = o.payment_id and p.order_id = o.id
                         and p.status = 'succeeded') as by_wallet,
                 exists (select 1 from provider_payments pp where pp.id = o.payment_id and pp.order_id = o.id
                         and pp.status = 'succeeded' and pp.duplicate_of is null and pp.provider = o.provider
                         and pp.reference = o.provider_reference) as by_provider
          from orders o where o.status in ('paid', 'refunded', 'partially_refunded')
        )
        select id, case when by_wallet then 'wallet' when by_provider then 'provider' else 'none' end as way,
               case when not by_wallet and not by_provider
                    then 'paid, but its payment ' || coalesce(payment_id, '(none)') || ' is no succeeded payment of it'
               end as detail
        from paid
        union all
        select pp.order_id, 'none', 'provider payment ' || pp.id || ' succeeded, but its order is not paid by it'
        from provider_payments pp left join orders o on o.id = pp.order_id
        where pp.status = 'succeeded' and pp.duplicate_of is null
          and (o.id is null or o.payment_id is distinct from pp.id
               or o.status not in ('paid', 'refunded', 'partially_refunded'))`.execute(db);
      return rows.rows.map((row) => ({ ...row, shard }));
    }),
  );
  const rows = perShard.flat();
  return {
    findings: rows
      .filter((row) => row.way === "none")
      .map(
        (row): DriftFinding => ({
          subject: "order",
          id: row.id,
          kind: "order_payment",
          detail: `shard ${row.shard} ${row.detail}`,
          needsDrained: false,
        }),
      ),
    paidOrders: {
      wallet: rows.filter((row) => row.way === "wallet").length,
      provider: rows.filter((row) => row.way === "provider").length,
    },
  };
}
