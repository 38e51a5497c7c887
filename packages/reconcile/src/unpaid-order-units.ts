// Which orders' units may still come back to each product's stock, from the shards: an order awaiting payment
// with something to pay holds its units as `unpaid` in the product's Redis state (includes/product-unpaid-units.lua:
// one `unpaid:<orderId>` field per order and their sum), and a waiting room selling the product is sold out only
// when `available` and `unpaid` are both 0. Rebuilt or compared by product-checks.ts, with the queue drained.
import type { ShardDatabase } from "@floodgate/db";
import { type Kysely, sql } from "kysely";

/** productId -> orderId -> the order's units of that product. One query per shard. */
export type UnpaidUnits = Map<string, Map<string, number>>;

export async function readUnpaidUnits(
  shards: Kysely<ShardDatabase>[],
  productIds: string[],
): Promise<UnpaidUnits> {
  const units: UnpaidUnits = new Map(productIds.map((id) => [id, new Map()]));
  const perShard = await Promise.all(
    shards.map((db) =>
      sql<{ order_id: string; product_id: string; units: number }>`
        select o.id as order_id, i.product_id, sum(i.quantity)::int as units
        from orders o join order_items i on i.order_id = o.id
        where o.status = 'awaiting_payment' and o.amount > 0 and i.product_id = any(${productIds}::text[])
        group by o.id, i.product_id`.execute(db),
    ),
  );
  for (const { rows } of perShard) {
    for (const row of rows) units.get(row.product_id)?.set(row.order_id, Number(row.units));
  }
  return units;
}

/** The Redis fields that say these orders' units are unpaid: `unpaid:<orderId>` each and `unpaid`, their sum. */
export function unpaidFields(orders: Map<string, number>): (string | number)[] {
  if (orders.size === 0) return [];
  let total = 0;
  const fields: (string | number)[] = [];
  for (const [orderId, units] of [...orders].sort(([a], [b]) => (a < b ? -1 : 1))) {
    fields.push(`unpaid:${orderId}`, units);
    total += units;
  }
  return ["unpaid", total, ...fields];
}

/** A product state's unpaid fields as Redis holds them, for comparing with unpaidFields (same order). */
export function unpaidFieldsOf(state: Record<string, string>): (string | number)[] {
  const orders = new Map<string, number>();
  for (const [field, value] of Object.entries(state)) {
    if (field.startsWith("unpaid:")) orders.set(field.slice("unpaid:".length), Number(value));
  }
  const fields = unpaidFields(orders);
  // A stray total (no order field) or a total that is not their sum is drift too: keep what Redis says.
  if (state.unpaid !== undefined) {
    if (fields.length === 0) return ["unpaid", Number(state.unpaid)];
    fields[1] = Number(state.unpaid);
  }
  return fields;
}
