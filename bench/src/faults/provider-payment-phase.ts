// A fault's provider-paid orders, after its load: the charges drained to their shards (bounded), audited
// (provider-payment-audit.ts), and the suite's product's stock checked in Postgres (received = stock + units of
// live orders, the ledger agreeing, stock never negative).
import { auditHolds } from "@floodgate/db";
import { auditProviderPayments, type ProviderPaymentAudit } from "../audits/provider-payment-audit.ts";
import { log } from "../harness/progress-line.ts";
import { StockAuditor, type StockCheck } from "../hot-product/product-stock-check.ts";
import type { SystemRig } from "./fault-rig.ts";
import type { ProviderOrderClient, ProviderOrderCounts } from "./provider-order-client.ts";

export interface ProviderPaymentsResult {
  orderRate: number;
  counts: ProviderOrderCounts;
  audit: ProviderPaymentAudit;
  /** Whether every accepted charge had its row before the drain wait ended. */
  drained: boolean;
  /** The product's stock after the phase; `postgresHolds` is what the verdict judges (Redis' `available` is
   * compared by reconcile after the faults, on a drained queue). */
  stock: (StockCheck & { postgresHolds: boolean }) | null;
  stockError: string | null;
}

/** Reads of the stock before a mismatch is reported (3 s apart). */
const STOCK_TRIES = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function settleProviderPayments(
  rig: SystemRig,
  client: ProviderOrderClient,
  options: { orderRate: number; productId: string; referencePrefix: string; drainTimeoutSeconds: number },
): Promise<ProviderPaymentsResult> {
  const read = () => rig.ledger.providerPayments(options.referencePrefix, client.orderIds);
  const deadline = Date.now() + options.drainTimeoutSeconds * 1000;
  let reads = await read();
  let audit = auditProviderPayments(client.keys, reads);
  let last = reads.payments.length;
  let movedAt = Date.now();
  // Lost ones never arrive: the wait ends when nothing moved for 45 s (a claimed entry waits 30 s).
  while (audit.lost > 0 && Date.now() < deadline && Date.now() - movedAt <= 45_000) {
    await sleep(1000);
    reads = await read();
    audit = auditProviderPayments(client.keys, reads);
    if (reads.payments.length !== last) {
      last = reads.payments.length;
      movedAt = Date.now();
    }
  }
  const drained = audit.lost === 0;
  if (!drained) log(`provider payments: ${audit.lost} accepted charges without a row after the drain wait`);
  const auditor = new StockAuditor(rig.system.config.databaseUrl, rig.shardUrls);
  let stock: ProviderPaymentsResult["stock"] = null;
  let stockError: string | null = null;
  try {
    // The global ledger and the shards' orders are written in two transactions: an expiry of an earlier
    // fault's unpaid order in flight between them is not drift, so a mismatch is read again for a while.
    for (let tries = 1; ; tries++) {
      const check = await auditor.check(
        { baseUrl: rig.system.baseUrl, adminKey: rig.system.adminKey },
        options.productId,
      );
      stock = { ...check, postgresHolds: auditHolds(check) && check.stock >= 0 };
      if (stock.postgresHolds || tries >= STOCK_TRIES) break;
      await sleep(3000);
    }
  } catch (error) {
    stockError = String(error);
  } finally {
    await auditor.close();
  }
  return { orderRate: options.orderRate, counts: client.counts, audit, drained, stock, stockError };
}
