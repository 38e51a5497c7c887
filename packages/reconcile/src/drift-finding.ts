// What reconcile found: one finding per drifted item, with the Redis writes that set it right, or none when
// only a person can settle it (Postgres is the truth reconcile repairs Redis from; nothing checks Postgres).
import type { ChainableCommander, Redis } from "ioredis";

export type DriftKind =
  // Postgres, products
  | "product_ledger" // received != stock + ledger units
  | "product_orders" // ledger units != units in live orders (valid only when drained)
  | "product_negative_stock"
  // Redis vs Postgres, products
  | "product_state_missing"
  | "product_price"
  | "product_max_units" // the per-user cap on unpaid units
  | "product_available"
  | "product_unpaid" // units of orders awaiting payment, which a room's sold-out needs
  // Postgres, coupons
  | "coupon_over_issued"
  | "coupon_duplicate_holder"
  | "coupon_issue_use" // a coupon issue used by several live orders, or its used flag disagrees with them
  // Redis vs Postgres, coupons
  | "coupon_state_missing"
  | "coupon_definition"
  | "coupon_issued_count"
  | "coupon_holders"
  | "coupon_issue_records"
  // Redis, products and coupons: units reserved by a request still in flight (not drift; nothing compared)
  | "reservations_pending"
  // Postgres, money (wallet-checks.ts)
  | "wallet_balance" // balance != deposits - payments + refunds
  | "payment_refunded" // a payment's refunded total != its succeeded refunds
  // Postgres, paid orders (order-payment-checks.ts)
  | "order_payment"; // a paid order without its succeeded payment, or a provider payment without its order

export type DriftOutcome = "repaired" | "would_repair" | "not_repaired" | "needs_human";

export interface RedisRepair {
  /** What the repair sets, for the report: "available = 10". */
  summary: string;
  /** Its writes, each within one slot; each slot's writes (of every finding) go in that slot's own MULTI. */
  writes: SlotWrite[];
}

export interface SlotWrite {
  /** What the writes were computed from: read again under WATCH before they are applied. */
  read: SlotRead;
  /** Adds the writes to the slot's transaction. */
  write(transaction: ChainableCommander): void;
}

/**
 * What the check read in one slot to decide repairs there. The repair step WATCHes `keys` on the connection that
 * sends the slot's MULTI, reads them again with `read`, and applies only if that gives `seen` once more.
 */
export interface SlotRead {
  /** The slot as the report names it, which also groups the repairs: "product prd_..", "partition 3". */
  slot: string;
  /** The keys read, all in that slot. */
  keys: string[];
  /** What the check read, serialized by `read`'s own rules. */
  seen: string;
  read(redis: Redis): Promise<string>;
}

export interface DriftFinding {
  subject: "product" | "coupon" | "coupon_issue" | "wallet" | "payment" | "order";
  id: string;
  kind: DriftKind;
  /** What differs: "redis available 7, postgres stock 10". */
  detail: string;
  /** Absent for Postgres-side drift. */
  repair?: RedisRepair;
  /** Only meaningful with the queue drained (Redis comparisons and the ledger against the orders). */
  needsDrained: boolean;
  outcome?: DriftOutcome;
  /** Why it is "not_repaired": which slots changed before their repair, or what is still in flight. */
  notApplied?: string;
}

/** Why Postgres-side drift is reported and left alone: which side is right depends on what happened. */
export const NEEDS_HUMAN: Partial<Record<DriftKind, string>> = {
  product_ledger:
    "stock and the ledger moved apart outside the workers' single statement (a manual edit?); decide which is right",
  product_orders:
    "the ledger and the shards' orders disagree (a lost batch or a manual edit); find the orders in question",
  product_negative_stock: "more units were sold than received; decide how to make the orders good",
  coupon_over_issued: "more coupons are recorded than the coupon's quantity; decide which issues stand",
  coupon_duplicate_holder: "one user holds this coupon twice (on two shards); remove one issue",
  coupon_issue_use: "the shard's orders and its coupon issues disagree; check the orders named",
  wallet_balance:
    "the wallet and its deposits, payments and refunds disagree (a manual edit?); find the rows in question",
  payment_refunded:
    "the payment's refunded total and its refunds disagree (a manual edit?); check its refunds",
  order_payment:
    "the order's status and its wallet or provider payment disagree (a manual edit?); check the order's payment",
};
