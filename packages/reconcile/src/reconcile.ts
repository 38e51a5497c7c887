// Compares the Redis counters with the databases, reports drift and repairs Redis from Postgres. Postgres is
// the truth: its own inconsistencies are reported for a person to settle, never "repaired" by guesswork.
// Redis is compared only while the queue is drained, and repaired only if nothing moved since it was read.
// The repairs are applied per slot, the same way on one Redis and on a Redis Cluster (slot-repairs.ts): each
// slot's group WATCHes the keys the check read there, reads them again, and MULTIs its writes only if they are
// unchanged; a group whose keys changed writes nothing and the others still apply (its findings say so, and
// the check is redone while attempts remain).
//
// The streams' fingerprint spans every partition's slot, so it cannot be watched with them: it is read again
// right before the groups, and if it moved nothing is applied and the check is redone. What remains is the
// window between that read and each group's EXEC, in which the intake may accept a request and a worker apply
// it. Harmless: every acceptance that moves an item's counters (a coupon issue, an order, a release) writes the
// item's own keys in the same script as its stream append (on a cluster, the first step writes the item's
// slot, reservation included), and the item's keys are what its group watches, so the group either reads the
// new state and skips, or has its EXEC aborted. A redemption record is written only by such scripts too, and a
// partition's group watches the records it repairs. The Postgres rows the repair copies are those the check
// read: a request accepted after the fingerprint's read had changed Redis first, which the group sees.
// An item with reservations pending (a request between its two steps on a cluster) is not compared at all
// (reservations-pending.ts), and its reservations set is one of the keys its group watches.

import { checkCoupon, listCoupons } from "./coupon-checks.ts";
import { checkCouponUses } from "./coupon-use-checks.ts";
import type { DriftFinding } from "./drift-finding.ts";
import { NodeConnections } from "./node-connections.ts";
import { checkOrderPayments, type PaidOrderCounts } from "./order-payment-checks.ts";
import { checkProducts, listProductIds } from "./product-checks.ts";
import { inFlight, type QueueActivity, readQueueActivity, sameActivity } from "./queue-activity.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";
import { applySlotRepairs, settleOutcomes } from "./slot-repairs.ts";
import { checkWallets } from "./wallet-checks.ts";

export interface ReconcileProgress {
  phase: "products" | "coupons";
  done: number;
  total: number;
}

export interface ReconcileOptions {
  /** Report without writing anything. */
  dryRun?: boolean;
  /** Called after each chunk of products and each coupon; awaited. */
  onProgress?: (progress: ReconcileProgress) => void | Promise<void>;
  /** How many times the check is run when the queue moves during it (default 3). */
  attempts?: number;
}

export interface ReconcileReport {
  dryRun: boolean;
  productsChecked: number;
  couponsChecked: number;
  /**
   * Paid orders by the way they were paid, counted apart: from a wallet (in the wallet invariant) or at the
   * shop's payment provider (no wallet moved).
   */
  paidOrders: PaidOrderCounts;
  /** The queue as read at the start of the (last) check. */
  queue: QueueActivity;
  /** Null when Redis was compared with Postgres; otherwise why it was not. */
  redisSkipped: string | null;
  findings: DriftFinding[];
  /** Items found drifted: the "reconcile drift" figure. */
  drift: number;
  repaired: number;
  /** Drift left as it is (Postgres-side, a repair that did not apply, an item in flight). */
  unrepaired: number;
}

const PRODUCT_CHUNK = 500;

interface Check {
  queue: QueueActivity;
  /** The queue as read last (after the check, or before the repairs). */
  latest: QueueActivity;
  compared: boolean;
  moved: boolean;
  productsChecked: number;
  couponsChecked: number;
  paidOrders: PaidOrderCounts;
  findings: DriftFinding[];
}

export async function reconcile(
  stores: ReconcileStores,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const dryRun = options.dryRun ?? false;
  const attempts = Math.max(1, options.attempts ?? 3);
  const connections = new NodeConnections(stores.redis);
  let check: Check | undefined;
  // Repaired by an attempt whose other groups changed: the next check no longer finds them, the report still does.
  const repairedEarlier: DriftFinding[] = [];
  try {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      check = await checkOnce(stores, options);
      if (check.moved) continue;
      const repairs = check.findings.filter((finding) => finding.repair);
      if (!check.compared || dryRun || repairs.length === 0) break;
      const now = await readQueueActivity(stores.redis, stores.keys);
      if (!sameActivity(check.queue, now)) {
        check.latest = now;
        check.moved = true;
        continue;
      }
      const changed = await applySlotRepairs(connections, repairs);
      const unrepaired = settleOutcomes(repairs, changed);
      if (unrepaired.length === 0 || attempt === attempts) break;
      repairedEarlier.push(...repairs.filter((finding) => finding.outcome === "repaired"));
    }
  } finally {
    connections.close();
  }
  return report(check!, dryRun, attempts, repairedEarlier);
}

async function checkOnce(stores: ReconcileStores, options: ReconcileOptions): Promise<Check> {
  const queue = await readQueueActivity(stores.redis, stores.keys);
  const compared = queue.drained;
  const findings: DriftFinding[] = [];

  const productIds = await listProductIds(stores);
  for (let start = 0; start < productIds.length; start += PRODUCT_CHUNK) {
    findings.push(...(await checkProducts(stores, productIds.slice(start, start + PRODUCT_CHUNK), compared)));
    await options.onProgress?.({
      phase: "products",
      done: Math.min(productIds.length, start + PRODUCT_CHUNK),
      total: productIds.length,
    });
  }
  const coupons = await listCoupons(stores);
  for (const [i, coupon] of coupons.entries()) {
    findings.push(...(await checkCoupon(stores, coupon, compared)));
    await options.onProgress?.({ phase: "coupons", done: i + 1, total: coupons.length });
  }
  findings.push(...(await checkCouponUses(stores)));
  findings.push(...(await checkWallets(stores)));
  const orderPayments = await checkOrderPayments(stores);
  findings.push(...orderPayments.findings);

  const latest = compared ? await readQueueActivity(stores.redis, stores.keys) : queue;
  return {
    queue,
    latest,
    compared,
    moved: !sameActivity(queue, latest),
    productsChecked: productIds.length,
    couponsChecked: coupons.length,
    paidOrders: orderPayments.paidOrders,
    findings,
  };
}

function report(
  check: Check,
  dryRun: boolean,
  attempts: number,
  repairedEarlier: DriftFinding[],
): ReconcileReport {
  let redisSkipped: string | null = null;
  let findings = check.findings;
  if (!check.compared) {
    redisSkipped = `the queue is not drained: ${inFlight(check.queue)} entries in flight (${check.queue.pending} pending, ${check.queue.undelivered} undelivered)`;
  } else if (check.moved) {
    redisSkipped = `Redis or the queue changed during each of ${attempts} checks (${inFlight(check.latest)} entries in flight at the last)`;
  }
  // Comparisons that need a drained queue say nothing about a moving one.
  if (redisSkipped !== null) findings = findings.filter((finding) => !finding.needsDrained);
  findings = [...repairedEarlier, ...findings];
  for (const finding of findings) {
    finding.outcome ??= finding.repair ? (dryRun ? "would_repair" : "not_repaired") : "needs_human";
  }
  const count = (outcome: string) => findings.filter((finding) => finding.outcome === outcome).length;
  return {
    dryRun,
    productsChecked: check.productsChecked,
    couponsChecked: check.couponsChecked,
    paidOrders: check.paidOrders,
    queue: check.queue,
    redisSkipped,
    findings,
    drift: findings.length,
    repaired: count("repaired"),
    unrepaired: count("needs_human") + count("not_repaired"),
  };
}
