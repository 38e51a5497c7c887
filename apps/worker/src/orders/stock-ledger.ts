// Product stock in the global database moves once per batch, not once per order: the batch's quantities are
// summed per product and each product row is updated once (the seed in 004 locked the hot row per order).
// Exactly once comes from the ledger: one stock_movements row per (order, product, direction), inserted with
// ON CONFLICT DO NOTHING, and stock moves only by the rows this statement inserted. A redelivered batch
// inserts nothing and moves nothing. Going below zero violates CHECK (stock >= 0) and fails the statement
// as a whole: Redis reserved first, so that means drift for `floodgate reconcile` to report.
import type { GlobalDatabase } from "@floodgate/db";
import type { OrderLine } from "@floodgate/domain";
import { type Kysely, sql } from "kysely";

export interface StockMovement {
  orderId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
}

/** One statement; returns how many units it moved (0 when every movement was already recorded). */
export async function moveStock(
  db: Kysely<GlobalDatabase>,
  direction: "reserve" | "release",
  movements: StockMovement[],
): Promise<number> {
  // One ledger row per (order, product): an order may name a product on several lines. An order may also be
  // listed twice (a redelivered order and its end request in one batch): it is still one movement.
  const orders = new Map(movements.map((movement) => [movement.orderId, movement]));
  const rows = new Map<string, { orderId: string; productId: string; quantity: number }>();
  for (const { orderId, items } of orders.values()) {
    for (const { productId, quantity } of items) {
      const key = `${orderId} ${productId}`;
      const row = rows.get(key);
      if (row) row.quantity += quantity;
      else rows.set(key, { orderId, productId, quantity });
    }
  }
  if (rows.size === 0) return 0;
  // Products in id order: two workers updating the same products take their row locks in the same order.
  const list = [...rows.values()].sort((a, b) =>
    a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0,
  );
  const sign = direction === "reserve" ? -1 : 1;
  const result = await sql<{ moved: number | null }>`
    with moved as (
      insert into stock_movements (order_id, product_id, direction, quantity)
      select order_id, product_id, ${direction}, quantity
      from unnest(${list.map((r) => r.orderId)}::text[], ${list.map((r) => r.productId)}::text[],
                  ${list.map((r) => r.quantity)}::int[]) as v(order_id, product_id, quantity)
      -- Only what was reserved is released (an order dead-lettered before its reservation gives none back).
      where ${direction} = 'reserve' or exists (
        select 1 from stock_movements r
        where r.order_id = v.order_id and r.product_id = v.product_id and r.direction = 'reserve')
      on conflict do nothing
      returning product_id, quantity
    ), totals as (
      select product_id, sum(quantity)::bigint as quantity from moved group by product_id
    ), updated as (
      update products p set stock = p.stock + ${sign}::int * t.quantity, updated_at = now()
      from totals t where p.id = t.product_id
      returning t.quantity
    )
    select sum(quantity)::bigint as moved from updated`.execute(db);
  return Number(result.rows[0]?.moved ?? 0);
}
