// The provider payments' decision table, without a database (the shard's part is provider-payments.test.ts):
// one charge is one payment, within a batch and across batches; each refusal carries its code, and only those
// that leave the shopper's charge paying nothing are orphans.
import { newOperationId, type ProviderPaymentMessage } from "@floodgate/domain";
import { describe, expect, it } from "vitest";
import {
  type LockedOrder,
  type OriginalPayment,
  ProviderPaymentLedger,
  pairKey,
} from "../src/provider-payments/provider-payment-ledger.ts";

const ORDER = newOperationId("order", 5);
const OTHER = newOperationId("order", 5);

const message = (reference: string, orderId = ORDER, amount = 1_000): ProviderPaymentMessage => ({
  v: 1,
  kind: "provider_payment",
  id: newOperationId("provider_payment", 5),
  createdAt: Date.now(),
  orderId,
  provider: "stripe",
  reference,
  amount,
  currency: "KRW",
});

const ledger = (status: string, originals: OriginalPayment[] = []) =>
  new ProviderPaymentLedger(
    new Map<string, LockedOrder>([
      [ORDER, { userId: "u", status, amount: 1_000, items: [{ productId: "prd_1", quantity: 1 }] }],
      [OTHER, { userId: "u", status: "awaiting_payment", amount: 1_000, items: [] }],
    ]),
    new Map(originals.map((o) => [pairKey("stripe", o.id === "ppy_first" ? "pi_1" : "pi_x"), o])),
  );

describe("a provider payment's decision", () => {
  it("pays an order awaiting payment once; the same charge again in the batch is its duplicate", () => {
    const book = ledger("awaiting_payment");
    const first = message("pi_1");
    const again = message("pi_1");
    expect(book.decide(first)).toMatchObject({
      status: "succeeded",
      userId: "u",
      duplicateOf: null,
      orphaned: false,
    });
    expect(book.decide(again)).toMatchObject({ status: "succeeded", duplicateOf: first.id, orphaned: false });
    expect(book.paid).toEqual([first]);
    expect(book.paidOrders()).toEqual([
      { orderId: ORDER, userId: "u", items: [{ productId: "prd_1", quantity: 1 }] },
    ]);
  });

  it("repeats a recorded charge's outcome for its order, and refuses it for another (reference_used)", () => {
    const recorded: OriginalPayment = {
      id: "ppy_first",
      orderId: ORDER,
      status: "failed",
      failureReason: "order_not_payable",
    };
    const book = ledger("expired", [recorded]);
    expect(book.decide(message("pi_1"))).toMatchObject({
      status: "failed",
      failureReason: "order_not_payable",
      duplicateOf: "ppy_first",
      orphaned: false,
    });
    expect(book.decide(message("pi_1", OTHER))).toMatchObject({
      status: "failed",
      failureReason: "reference_used",
      duplicateOf: "ppy_first",
      orphaned: false,
    });
    expect(book.paid).toEqual([]);
  });

  it.each([
    ["expired", 1_000, "order_not_payable", true],
    ["cancelled", 1_000, "order_not_payable", true],
    ["paid", 1_000, "order_already_paid", true],
    ["refunded", 1_000, "order_already_paid", true],
    ["awaiting_payment", 999, "amount_mismatch", true],
  ] as const)("an order %s, %i paid: failed %s, orphaned %s", (status, amount, reason, orphaned) => {
    const book = ledger(status);
    expect(book.decide(message("pi_2", ORDER, amount))).toMatchObject({
      status: "failed",
      failureReason: reason,
      duplicateOf: null,
      orphaned,
    });
    expect(book.paid).toEqual([]);
  });

  it("fails an order not on the shard order_not_found, an orphan: the charge was taken and pays nothing", () => {
    expect(ledger("paid").decide(message("pi_3", newOperationId("order", 5)))).toMatchObject({
      status: "failed",
      failureReason: "order_not_found",
      userId: null,
      orphaned: true,
    });
  });

  it("pays the order with the first of two charges in a batch; the second is order_already_paid", () => {
    const book = ledger("awaiting_payment");
    expect(book.decide(message("pi_a")).status).toBe("succeeded");
    expect(book.decide(message("pi_b"))).toMatchObject({
      failureReason: "order_already_paid",
      orphaned: true,
    });
  });
});
