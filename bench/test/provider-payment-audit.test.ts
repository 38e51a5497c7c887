// The fault suite's provider-payment audit, on rows read back from real shards: clean when each accepted charge
// paid its order once (or was refused with its orphan event), and failing when a charge is lost, applied twice,
// half applied, orphaned without its event, or moved a wallet.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditProviderPayments, type ProviderPaymentKey } from "../src/audits/provider-payment-audit.ts";
import { LedgerReads } from "../src/faults/ledger-reads.ts";

let env: TestEnvironment;
type Shard = ReturnType<typeof createKysely<ShardDatabase>>;
let shard: Shard;
let ledger: LedgerReads;

beforeAll(async () => {
  env = await createTestEnvironment("bench-provider-audit", { shards: 2 });
  shard = createKysely<ShardDatabase>(env.config.shardUrls[1]!, { max: 1 });
  ledger = new LedgerReads(env.config.shardUrls);
});

afterAll(async () => {
  await ledger?.close();
  await shard?.destroy();
  await env?.cleanup();
});

let bucket = 0;

/** An order on the shard, paid by `reference` when given, and its id. */
async function order(status: "awaiting_payment" | "paid", reference: string | null = null): Promise<string> {
  const id = newOperationId("order", ++bucket);
  await shard
    .insertInto("orders")
    .values({
      id,
      user_id: "pp-user",
      status,
      failure_reason: null,
      amount: 700,
      discount: 0,
      currency: "KRW",
      coupon_issue_id: null,
      payment_id: null,
      provider: reference === null ? null : "bench",
      provider_reference: reference,
      expires_at: new Date(Date.now() + 600_000),
      created_at: new Date(),
    })
    .execute();
  return id;
}

/** A provider payment row (its id is returned), with its orphan event when `event`. */
async function charge(
  orderId: string,
  reference: string,
  outcome: { failed?: string; duplicateOf?: string; event?: boolean } = {},
): Promise<string> {
  const id = newOperationId("provider_payment", bucket);
  await shard
    .insertInto("provider_payments")
    .values({
      id,
      order_id: orderId,
      user_id: "pp-user",
      provider: "bench",
      reference,
      amount: 700,
      currency: "KRW",
      status: outcome.failed ? "failed" : "succeeded",
      failure_reason: outcome.failed ?? null,
      duplicate_of: outcome.duplicateOf ?? null,
      created_at: new Date(),
    })
    .execute();
  if (outcome.event) {
    await shard
      .insertInto("events")
      .values({
        event_id: `evt-${id}`,
        event_type: "order.provider_payment_orphaned",
        operation_id: id,
        data: JSON.stringify({ id }),
      })
      .execute();
  }
  return id;
}

const key = (reference: string, orderId: string, ids: string[]): ProviderPaymentKey => ({
  reference,
  orderId,
  ids,
  accepted: ids.length > 0,
});

const audit = async (prefix: string, keys: ProviderPaymentKey[]) =>
  auditProviderPayments(
    keys,
    await ledger.providerPayments(
      prefix,
      keys.map((k) => k.orderId),
    ),
  );

describe("the provider-payment audit on real shards", () => {
  it("is clean: a paid order, a repeated charge, a second charge and a wrong amount orphaned with events", async () => {
    const paid = await order("paid", "clean-1");
    const first = await charge(paid, "clean-1");
    const repeat = await charge(paid, "clean-1", { duplicateOf: first });
    const second = await charge(paid, "clean-1b", { failed: "order_already_paid", event: true });
    const unpaid = await order("awaiting_payment");
    const wrong = await charge(unpaid, "clean-2", { failed: "amount_mismatch", event: true });
    const result = await audit("clean-", [
      key("clean-1", paid, [first]),
      key("clean-1", paid, [repeat]),
      key("clean-1b", paid, [second]),
      key("clean-2", unpaid, [wrong]),
      key("clean-3", unpaid, []),
    ]);
    expect(result).toMatchObject({
      keys: 5,
      accepted: 4,
      lost: 0,
      appliedTwice: 0,
      providerPaid: 1,
      paidNotRecorded: 0,
      orphaned: 2,
      orphanedWithoutEvent: 0,
      duplicates: 1,
      failureReasons: { order_already_paid: 1, amount_mismatch: 1 },
      walletPayments: 0,
      ok: true,
    });
  });

  it("fails when an accepted charge has no row (lost)", async () => {
    const paid = await order("paid", "lost-1");
    const first = await charge(paid, "lost-1");
    const other = await order("awaiting_payment");
    const result = await audit("lost-", [
      key("lost-1", paid, [first]),
      key("lost-2", other, [newOperationId("provider_payment", bucket)]),
    ]);
    expect(result).toMatchObject({ lost: 1, ok: false });
    expect(result.examples.lost).toEqual(["lost-2"]);
  });

  it("fails when one order is paid by two charges (applied twice)", async () => {
    const paid = await order("paid", "twice-1");
    const first = await charge(paid, "twice-1");
    const second = await charge(paid, "twice-1b");
    const result = await audit("twice-", [key("twice-1", paid, [first]), key("twice-1b", paid, [second])]);
    expect(result.appliedTwice).toBe(1);
    expect(result.paidNotRecorded).toBe(1);
    expect(result.ok).toBe(false);
  });

  it("fails when a succeeded charge is not on its order, or an order names a charge that did not succeed", async () => {
    const notMarked = await order("awaiting_payment");
    const succeeded = await charge(notMarked, "half-1");
    const markedOnly = await order("paid", "half-2");
    const result = await audit("half-", [
      key("half-1", notMarked, [succeeded]),
      key("half-2", markedOnly, []),
    ]);
    expect(result).toMatchObject({ paidNotRecorded: 2, providerPaid: 0, ok: false });
  });

  it("fails when a refused charge that took the money has no orphan event", async () => {
    const unpaid = await order("awaiting_payment");
    const wrong = await charge(unpaid, "silent-1", { failed: "amount_mismatch" });
    const result = await audit("silent-", [key("silent-1", unpaid, [wrong])]);
    expect(result).toMatchObject({ orphaned: 0, orphanedWithoutEvent: 1, ok: false });
  });

  it("fails when a charge refused order_not_found (an order recorded too late) has no orphan event", async () => {
    const late = await order("awaiting_payment");
    const refused = await charge(late, "late-1", { failed: "order_not_found" });
    const result = await audit("late-", [key("late-1", late, [refused])]);
    expect(result).toMatchObject({ orphaned: 0, orphanedWithoutEvent: 1, ok: false });
  });

  it("fails when a wallet payment names a provider-paid order", async () => {
    const paid = await order("paid", "wallet-1");
    const first = await charge(paid, "wallet-1");
    await shard
      .insertInto("payments")
      .values({
        id: newOperationId("payment", bucket),
        user_id: "pp-user",
        amount: 700,
        currency: "KRW",
        status: "succeeded",
        failure_reason: null,
        order_id: paid,
        created_at: new Date(),
      })
      .execute();
    const result = await audit("wallet-", [key("wallet-1", paid, [first])]);
    expect(result).toMatchObject({ walletPayments: 1, providerPaid: 1, ok: false });
  });
});
