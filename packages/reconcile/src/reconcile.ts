// Compares the Redis counters with the databases, reports drift and repairs Redis from Postgres. Postgres is
// the truth: its own inconsistencies are reported for a person to settle, never "repaired" by guesswork.
// Redis is compared only while the queue is drained, and repaired only if nothing moved since it was read:
// the keys read are WATCHed, the streams' fingerprint is read again right before one MULTI applies every
// repair, and any change aborts it (the whole check is then redone).

import { checkCoupon, listCoupons } from "./coupon-checks.ts";
import { checkCouponUses } from "./coupon-use-checks.ts";
import type { DriftFinding } from "./drift-finding.ts";
import { checkProducts, listProductIds } from "./product-checks.ts";
import { inFlight, type QueueActivity, readQueueActivity, sameActivity } from "./queue-activity.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";
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
  /** The queue as read at the start of the (last) check. */
  queue: QueueActivity;
  /** Null when Redis was compared with Postgres; otherwise why it was not. */
  redisSkipped: string | null;
  findings: DriftFinding[];
  /** Items found drifted: the "reconcile drift" figure. */
  drift: number;
  repaired: number;
  /** Drift left as it is (Postgres-side, or a repair that did not apply); 0 in a dry run. */
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
  findings: DriftFinding[];
}

export async function reconcile(
  stores: ReconcileStores,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const dryRun = options.dryRun ?? false;
  const attempts = Math.max(1, options.attempts ?? 3);
  let check: Check | undefined;
  try {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      check = await checkOnce(stores, options);
      if (check.moved) {
        await stores.redis.unwatch();
        continue;
      }
      const repairs = check.findings.filter((finding) => finding.repair);
      if (!check.compared || dryRun || repairs.length === 0) {
        await stores.redis.unwatch();
        break;
      }
      const outcome = await applyRepairs(stores, check.queue, repairs);
      if (outcome === "applied") {
        for (const finding of repairs) finding.outcome = "repaired";
        break;
      }
      check.latest = outcome;
      check.moved = true; // the transaction was aborted: something changed after the check read it
    }
  } catch (error) {
    await stores.redis.unwatch().catch(() => {});
    throw error;
  }
  return report(check!, dryRun, attempts);
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

  const latest = compared ? await readQueueActivity(stores.redis, stores.keys) : queue;
  return {
    queue,
    latest,
    compared,
    moved: !sameActivity(queue, latest),
    productsChecked: productIds.length,
    couponsChecked: coupons.length,
    findings,
  };
}

/**
 * One MULTI, applied only if no stream moved and no watched key changed since the check. Returns "applied",
 * or the queue as it was found when the repairs had to be given up.
 */
async function applyRepairs(
  stores: ReconcileStores,
  checked: QueueActivity,
  repairs: DriftFinding[],
): Promise<"applied" | QueueActivity> {
  const { redis, keys } = stores;
  await redis.watch(...keys.allStreams());
  const now = await readQueueActivity(redis, keys);
  if (!sameActivity(checked, now)) {
    await redis.unwatch();
    return now;
  }
  const transaction = redis.multi();
  for (const finding of repairs) finding.repair!.write(transaction);
  const replies = await transaction.exec();
  if (replies === null) return now; // a watched key changed between the check and EXEC
  for (const [error] of replies) if (error) throw error;
  return "applied";
}

function report(check: Check, dryRun: boolean, attempts: number): ReconcileReport {
  let redisSkipped: string | null = null;
  let findings = check.findings;
  if (!check.compared) {
    redisSkipped = `the queue is not drained: ${inFlight(check.queue)} entries in flight (${check.queue.pending} pending, ${check.queue.undelivered} undelivered)`;
  } else if (check.moved) {
    redisSkipped = `Redis or the queue changed during each of ${attempts} checks (${inFlight(check.latest)} entries in flight at the last)`;
  }
  // Comparisons that need a drained queue say nothing about a moving one.
  if (redisSkipped !== null) findings = findings.filter((finding) => !finding.needsDrained);
  for (const finding of findings) {
    finding.outcome ??= finding.repair ? (dryRun ? "would_repair" : "not_repaired") : "needs_human";
  }
  const count = (outcome: string) => findings.filter((finding) => finding.outcome === outcome).length;
  return {
    dryRun,
    productsChecked: check.productsChecked,
    couponsChecked: check.couponsChecked,
    queue: check.queue,
    redisSkipped,
    findings,
    drift: findings.length,
    repaired: count("repaired"),
    unrepaired: count("needs_human") + count("not_repaired"),
  };
}
