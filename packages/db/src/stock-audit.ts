// What the databases say about each product's units, for the invariant every test, benchmark and
// `floodgate reconcile` checks: received = stock + units in live orders (awaiting payment, paid, or refunded without restock), and the
// global ledger (reserved - released) agrees with the orders on the shards.
import { type Kysely, sql } from "kysely";
import type { GlobalDatabase, ShardDatabase } from "./shard-tables.ts";

export interface ProductAudit {
  productId: string;
  /** Every unit ever put on sale. */
  received: number;
  /** Units left in Postgres. */
  stock: number;
  /** Reserved minus released, from the global ledger. */
  ledgerUnits: number;
  /** Units in orders awaiting payment or paid, summed over every shard. */
  liveOrderUnits: number;
}

export const auditHolds = (audit: ProductAudit) =>
  audit.received === audit.stock + audit.liveOrderUnits && audit.ledgerUnits === audit.liveOrderUnits;

/** Every product, or the given ones. One query on the global database and one per shard. */
export async function auditProducts(
  global: Kysely<GlobalDatabase>,
  shards: Kysely<ShardDatabase>[],
  productIds?: string[],
): Promise<ProductAudit[]> {
  const filter = productIds ? sql`where p.id = any(${productIds}::text[])` : sql``;
  const products = await sql<{ id: string; received: number; stock: number; ledger: number }>`
    select p.id, p.received, p.stock,
           coalesce(sum(case m.direction when 'reserve' then m.quantity else -m.quantity end), 0)::bigint as ledger
    from products p left join stock_movements m on m.product_id = p.id
    ${filter}
    group by p.id order by p.id`.execute(global);
  const live = new Map<string, number>();
  const ids = products.rows.map((row) => row.id);
  const perShard = await Promise.all(
    shards.map((db) =>
      sql<{ product_id: string; units: number }>`
        select i.product_id, sum(i.quantity)::bigint as units
        from order_items i join orders o on o.id = i.order_id
        where (o.status in ('awaiting_payment', 'paid', 'partially_refunded')
               or (o.status = 'refunded' and not o.restocked)) and i.product_id = any(${ids}::text[])
        group by i.product_id`.execute(db),
    ),
  );
  for (const result of perShard) {
    for (const row of result.rows)
      live.set(row.product_id, (live.get(row.product_id) ?? 0) + Number(row.units));
  }
  return products.rows.map((row) => ({
    productId: row.id,
    received: Number(row.received),
    stock: Number(row.stock),
    ledgerUnits: Number(row.ledger),
    liveOrderUnits: live.get(row.id) ?? 0,
  }));
}
