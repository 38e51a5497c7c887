// What the fault suite reads from the shards, directly (never through the proxies the faults cut): a fault's
// payment rows by amount range, how many of a phase's payments are applied, the overload burst's rows (its own
// users, one amount per burst), the provider payments of a phase with their orders and events, and the wallet
// invariant.
import { createPool } from "@floodgate/db";
import type { ProviderPaymentReads } from "../audits/provider-payment-audit.ts";
import type { PaymentRow } from "./fault-audit.ts";

type Pool = ReturnType<typeof createPool>;

export interface WalletInvariant {
  deposits: number;
  succeededPayments: number;
  balances: number;
  /** deposits - succeeded payments - balances, summed over shards: 0 when every wallet adds up. */
  difference: number;
  holds: boolean;
  /**
   * Orders paid at the shop's payment provider, and what those charges took: counted apart, since they move no
   * wallet (a provider payment is no `payments` row, so it is in none of the sums above).
   */
  providerPaidOrders: number;
  providerPaid: number;
}

export class LedgerReads {
  readonly #pools: Pool[];

  constructor(shardUrls: readonly string[]) {
    // Two connections per shard: the bench reads, it must not compete with the workers for Postgres.
    this.#pools = shardUrls.map((url) => createPool(url, { max: 2, applicationName: "floodgate-bench" }));
  }

  /** Payments whose amount is in [from, to] (the suite's amounts are key sequence numbers). */
  async paymentRows(from: number, to: number): Promise<PaymentRow[]> {
    const sql = "select id, user_id, amount, status from payments where amount between $1 and $2";
    const perShard = await Promise.all(
      this.#pools.map(async (pool) =>
        (
          await pool.query<{ id: string; user_id: string; amount: number; status: string }>(sql, [from, to])
        ).rows.map((row) => ({ id: row.id, userId: row.user_id, amount: row.amount, status: row.status })),
      ),
    );
    return perShard.flat();
  }

  /** Payments applied with an amount of at least `from` (the phase's first sequence number). */
  async appliedSince(from: number): Promise<number> {
    const counts = await Promise.all(
      this.#pools.map(
        async (pool) =>
          (
            await pool.query<{ n: number }>("select count(*)::int as n from payments where amount >= $1", [
              from,
            ])
          ).rows[0]?.n ?? 0,
      ),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Ids of the payments of users whose id starts with `userPrefix`, with `amount` (one overload burst). */
  async burstRowIds(userPrefix: string, amount: number): Promise<string[]> {
    const sql = "select id from payments where user_id like $1 and amount = $2";
    const perShard = await Promise.all(
      this.#pools.map(async (pool) =>
        (await pool.query<{ id: string }>(sql, [`${userPrefix}%`, amount])).rows.map((row) => row.id),
      ),
    );
    return perShard.flat();
  }

  /** How many payments of one overload burst are applied. */
  async burstApplied(userPrefix: string, amount: number): Promise<number> {
    const sql = "select count(*)::int as n from payments where user_id like $1 and amount = $2";
    const counts = await Promise.all(
      this.#pools.map(
        async (pool) => (await pool.query<{ n: number }>(sql, [`${userPrefix}%`, amount])).rows[0]?.n ?? 0,
      ),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /**
   * The provider payments whose reference starts with `referencePrefix` (one fault's), the given orders, the
   * orphan events naming those payments, and the wallet payments naming those orders.
   */
  async providerPayments(
    referencePrefix: string,
    orderIds: readonly string[],
  ): Promise<ProviderPaymentReads> {
    const perShard = await Promise.all(
      this.#pools.map(async (pool) => {
        const payments = (
          await pool.query<{
            id: string;
            order_id: string;
            reference: string;
            status: string;
            failure_reason: string | null;
            duplicate_of: string | null;
          }>(
            `select id, order_id, reference, status, failure_reason, duplicate_of from provider_payments
              where starts_with(reference, $1)`,
            [referencePrefix],
          )
        ).rows;
        const orders = (
          await pool.query<{ id: string; status: string; provider_reference: string | null }>(
            "select id, status, provider_reference from orders where id = any($1::text[])",
            [orderIds],
          )
        ).rows;
        const events = (
          await pool.query<{ operation_id: string }>(
            `select operation_id from events
              where event_type = 'order.provider_payment_orphaned' and operation_id = any($1::text[])`,
            [payments.map((row) => row.id)],
          )
        ).rows;
        const wallet = await pool.query<{ n: number }>(
          "select count(*)::int as n from payments where order_id = any($1::text[])",
          [orderIds],
        );
        return { payments, orders, events, walletPayments: wallet.rows[0]?.n ?? 0 };
      }),
    );
    return {
      payments: perShard.flatMap((shard) =>
        shard.payments.map((row) => ({
          id: row.id,
          orderId: row.order_id,
          reference: row.reference,
          status: row.status,
          failureReason: row.failure_reason,
          duplicateOf: row.duplicate_of,
        })),
      ),
      orders: perShard.flatMap((shard) =>
        shard.orders.map((row) => ({
          id: row.id,
          status: row.status,
          providerReference: row.provider_reference,
        })),
      ),
      orphanEvents: perShard.flatMap((shard) => shard.events.map((row) => row.operation_id)),
      walletPayments: perShard.reduce((sum, shard) => sum + shard.walletPayments, 0),
    };
  }

  async walletInvariant(): Promise<WalletInvariant> {
    const sql = `select
        (select coalesce(sum(amount), 0) from deposits where status = 'succeeded')::float8 as deposits,
        (select coalesce(sum(amount), 0) from payments where status = 'succeeded')::float8 as payments,
        (select coalesce(sum(balance), 0) from wallets)::float8 as balances,
        (select count(*) from provider_payments
          where status = 'succeeded' and duplicate_of is null)::float8 as provider_orders,
        (select coalesce(sum(amount), 0) from provider_payments
          where status = 'succeeded' and duplicate_of is null)::float8 as provider_paid`;
    const perShard = await Promise.all(
      this.#pools.map(
        async (pool) =>
          (
            await pool.query<{
              deposits: number;
              payments: number;
              balances: number;
              provider_orders: number;
              provider_paid: number;
            }>(sql)
          ).rows[0]!,
      ),
    );
    const deposits = perShard.reduce((sum, row) => sum + row.deposits, 0);
    const succeededPayments = perShard.reduce((sum, row) => sum + row.payments, 0);
    const balances = perShard.reduce((sum, row) => sum + row.balances, 0);
    const difference = deposits - succeededPayments - balances;
    return {
      deposits,
      succeededPayments,
      balances,
      difference,
      holds: difference === 0,
      providerPaidOrders: perShard.reduce((sum, row) => sum + row.provider_orders, 0),
      providerPaid: perShard.reduce((sum, row) => sum + row.provider_paid, 0),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.end()));
  }
}
