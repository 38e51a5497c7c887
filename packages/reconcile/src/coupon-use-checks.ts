// Each coupon issue is used by at most one live order (awaiting payment or paid), and its `used` flag names
// exactly that order. The shard writes both in one transaction, so this holds at any moment; the queries
// return only the exceptions, one pass per shard.
import { sql } from "kysely";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

const LIVE = sql`('awaiting_payment', 'paid')`;

export async function checkCouponUses(stores: ReconcileStores): Promise<DriftFinding[]> {
  const problems = new Map<string, string[]>();
  const note = (issueId: string, problem: string) => {
    const list = problems.get(issueId);
    if (list) list.push(problem);
    else problems.set(issueId, [problem]);
  };
  for (const [shard, db] of stores.shards.entries()) {
    const [sharedIssues, staleFlags, unflaggedUses] = await Promise.all([
      sql<{ id: string; orders: string[] }>`
        select coupon_issue_id as id, array_agg(id order by id) as orders from orders
        where status in ${LIVE} and coupon_issue_id is not null
        group by coupon_issue_id having count(*) > 1`.execute(db),
      sql<{ id: string; order_id: string | null; order_status: string | null }>`
        select c.id, c.order_id, o.status as order_status
        from issued_coupons c left join orders o on o.id = c.order_id
        where c.status = 'used'
          and (o.id is null or o.status not in ${LIVE} or o.coupon_issue_id is distinct from c.id)`.execute(
        db,
      ),
      sql<{ id: string; order_id: string; status: string | null; used_by: string | null }>`
        select o.coupon_issue_id as id, o.id as order_id, c.status, c.order_id as used_by
        from orders o left join issued_coupons c on c.id = o.coupon_issue_id
        where o.status in ${LIVE} and o.coupon_issue_id is not null
          and (c.id is null or c.status <> 'used' or c.order_id is distinct from o.id)`.execute(db),
    ]);
    for (const row of sharedIssues.rows) {
      note(row.id, `shard ${shard}: used by ${row.orders.length} live orders (${row.orders.join(", ")})`);
    }
    for (const row of staleFlags.rows) {
      note(
        row.id,
        `shard ${shard}: marked used by ${row.order_id ?? "no order"}, which is ${row.order_status ?? "not on the shard"}`,
      );
    }
    for (const row of unflaggedUses.rows) {
      const state =
        row.status === null ? "not on the shard" : `${row.status} by ${row.used_by ?? "no order"}`;
      note(row.id, `shard ${shard}: live order ${row.order_id} uses it, but it is ${state}`);
    }
  }
  return [...problems].map(([id, list]) => ({
    subject: "coupon_issue",
    id,
    kind: "coupon_issue_use",
    detail: `postgres: ${list.join("; ")}`,
    needsDrained: false,
  }));
}
