// Read-only queries the bench runs against the shard databases (or the baseline's single database, which has
// the same payments columns). Shards are separate databases, so cross-shard figures are merged here.
import { createPool } from "@floodgate/db";
import type { AppliedRow } from "./delivery-audit.ts";
import type { OrderSettlementRow } from "./order-settlement-audit.ts";

type Pool = ReturnType<typeof createPool>;
export type OperationTable = "payments" | "deposits" | "wallets" | "issued_coupons" | "orders";

export class ShardSet {
  readonly urls: string[];
  readonly #pools: Pool[];

  constructor(urls: string[]) {
    this.urls = urls;
    // Two connections per shard: the bench polls, it must not compete with the workers for Postgres.
    this.#pools = urls.map((url) => createPool(url, { max: 2, applicationName: "floodgate-bench" }));
  }

  /** Rows in `table` across shards; with `since`, only rows created at or after it (not for wallets). */
  async count(table: OperationTable, since?: Date): Promise<number> {
    const sql =
      since === undefined
        ? `select count(*)::int as n from ${table}`
        : `select count(*)::int as n from ${table} where created_at >= $1`;
    const params = since === undefined ? [] : [since];
    const counts = await Promise.all(
      this.#pools.map(async (pool) => (await pool.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Payments created at or after `since`, with timestamps as epoch milliseconds (microsecond fraction kept). */
  async paymentRows(since: Date): Promise<AppliedRow[]> {
    const sql = `select id, status,
        extract(epoch from created_at)::float8 * 1000 as created_ms,
        extract(epoch from completed_at)::float8 * 1000 as completed_ms
      from payments where created_at >= $1`;
    const perShard = await Promise.all(
      this.#pools.map(async (pool, shard) => {
        const result = await pool.query<{
          id: string;
          status: string;
          created_ms: number;
          completed_ms: number;
        }>(sql, [since]);
        return result.rows.map((row) => ({
          id: row.id,
          shard,
          status: row.status,
          createdMs: row.created_ms,
          completedMs: row.completed_ms,
        }));
      }),
    );
    return perShard.flat();
  }

  /** Issued coupons of one coupon, across shards. */
  async issuedCoupons(couponId: string): Promise<{ id: string; userId: string; shard: number }[]> {
    const perShard = await Promise.all(
      this.#pools.map(async (pool, shard) =>
        (
          await pool.query<{ id: string; user_id: string }>(
            "select id, user_id from issued_coupons where coupon_id = $1",
            [couponId],
          )
        ).rows.map((row) => ({ id: row.id, userId: row.user_id, shard })),
      ),
    );
    return perShard.flat();
  }

  /** The orders holding `productId`, each with the payments naming it, across shards. */
  async orderSettlements(productId: string): Promise<OrderSettlementRow[]> {
    const sql = `select o.id, o.status, o.payment_id,
        count(p.id)::int as payments,
        count(p.id) filter (where p.status = 'succeeded')::int as succeeded
      from orders o
      join order_items i on i.order_id = o.id and i.product_id = $1
      left join payments p on p.order_id = o.id
      group by o.id`;
    const perShard = await Promise.all(
      this.#pools.map(async (pool) =>
        (
          await pool.query<{
            id: string;
            status: string;
            payment_id: string | null;
            payments: number;
            succeeded: number;
          }>(sql, [productId])
        ).rows.map((row) => ({
          id: row.id,
          status: row.status,
          paymentId: row.payment_id,
          payments: row.payments,
          succeededPayments: row.succeeded,
        })),
      ),
    );
    return perShard.flat();
  }

  /** The orders holding `productId` across shards: how many, how many paid, their units, the last paid's time. */
  async productSales(
    productId: string,
  ): Promise<{ orders: number; paidOrders: number; paidUnits: number; lastPaidAt: number | null }> {
    const sql = `select count(*)::int as orders,
        count(*) filter (where o.status = 'paid')::int as paid_orders,
        coalesce(sum(i.quantity) filter (where o.status = 'paid'), 0)::int as paid_units,
        max(o.updated_at) filter (where o.status = 'paid') as last_paid_at
      from orders o join order_items i on i.order_id = o.id and i.product_id = $1`;
    const rows = await Promise.all(
      this.#pools.map(
        async (pool) =>
          (
            await pool.query<{
              orders: number;
              paid_orders: number;
              paid_units: number;
              last_paid_at: Date | null;
            }>(sql, [productId])
          ).rows[0]!,
      ),
    );
    const paidTimes = rows.flatMap((row) => (row.last_paid_at ? [row.last_paid_at.getTime()] : []));
    return {
      orders: rows.reduce((n, row) => n + row.orders, 0),
      paidOrders: rows.reduce((n, row) => n + row.paid_orders, 0),
      paidUnits: rows.reduce((n, row) => n + row.paid_units, 0),
      lastPaidAt: paidTimes.length === 0 ? null : Math.max(...paidTimes),
    };
  }

  /** User ids whose wallet holds money, across shards. */
  async walletUserIds(): Promise<Set<string>> {
    const perShard = await Promise.all(
      this.#pools.map(
        async (pool) =>
          (await pool.query<{ user_id: string }>("select user_id from wallets where balance > 0")).rows,
      ),
    );
    return new Set(perShard.flat().map((row) => row.user_id));
  }

  async close(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.end()));
  }
}
