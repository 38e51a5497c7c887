import { describe, expect, it } from "vitest";
import type { DeliveryAudit } from "../src/audits/delivery-audit.ts";
import { auditSettlement } from "../src/audits/order-settlement-audit.ts";
import { checkPayment, checkSale, collectChecks } from "../src/hot-product/hot-product-invariants.ts";
import type { SaleResult } from "../src/hot-product/hot-product-sale.ts";
import type { OrderPaymentResult } from "../src/hot-product/order-payment-phase.ts";
import { checkStock } from "../src/hot-product/product-stock-check.ts";

const soldOut = (units: number) =>
  checkStock({ productId: "prd_1", received: units, stock: 0, ledgerUnits: units, liveOrderUnits: units }, 0);

const sale: SaleResult = {
  productId: "prd_1",
  stock: 10,
  offeredRate: 4000,
  connections: 2,
  slices: 1,
  requests: 12,
  responses: 12,
  accepted: 10,
  uniqueOrderIds: 10,
  outOfStock: 2,
  failures: 0,
  errors: 0,
  timeouts: 0,
  statusCounts: { 202: 10, 409: 2 },
  durationS: 1,
  responseRate: 12,
  acceptedPerSecond: [10],
  acceptedRate: 10,
  latencyMs: null,
  cpu: null,
  nextOrder: { status: 409, code: "out_of_stock" },
  ordersRecorded: { rows: 10, complete: true, waitedMs: 5 },
  stockAfterSale: soldOut(10),
};

const delivery = { exactlyOnce: true, failed: 0, unconfirmedRows: 0 } as DeliveryAudit;
const orderIds = Array.from({ length: 10 }, (_, i) => `ord_${i}`);
const payments = new Map(orderIds.map((id) => [`pay_${id}`, id]));
const paidRows = orderIds.map((id) => ({
  id,
  status: "paid",
  paymentId: `pay_${id}`,
  payments: 1,
  succeededPayments: 1,
}));
const payment = {
  orders: 10,
  accepted: 10,
  allApplied: true,
  delivery,
  settlement: auditSettlement(orderIds, payments, paidRows),
  stockAfterPayment: soldOut(10),
} as OrderPaymentResult;

const broken = (checks: { name: string; ok: boolean }[]) => checks.filter((c) => !c.ok).map((c) => c.name);

describe("checkSale", () => {
  it("holds for a clean sell-out", () => {
    expect(collectChecks(checkSale(sale)).ok).toBe(true);
  });

  it.each([
    [
      "one unit oversold",
      {
        accepted: 11,
        uniqueOrderIds: 11,
        outOfStock: 1,
        ordersRecorded: { rows: 11, complete: true, waitedMs: 1 },
      },
      "exactly the stock sold",
    ],
    ["one id given twice", { uniqueOrderIds: 9 }, "exactly the stock sold"],
    ["a 500 among the refusals", { outOfStock: 1, failures: 1 }, "every other order refused with 409"],
    [
      "a request without an answer",
      { responses: 11, outOfStock: 1, failures: 1 },
      "every other order refused with 409",
    ],
    [
      "the next order accepted",
      { nextOrder: { status: 202, code: null } },
      "the next order 409 out_of_stock",
    ],
    [
      "an order never recorded",
      { ordersRecorded: { rows: 9, complete: false, waitedMs: 1 } },
      "every accepted order recorded",
    ],
  ])("breaks with %s", (_name, change, check) => {
    expect(broken(checkSale({ ...sale, ...change }))).toEqual([check]);
  });

  it("breaks the stock invariant when Redis disagrees, units leak, or stock is left", () => {
    const name = "stock invariant after the sale (queue drained)";
    const redisAhead = checkStock({ ...soldOut(10), stock: 0 }, 1);
    const leaked = checkStock(
      { productId: "p", received: 10, stock: 0, ledgerUnits: 10, liveOrderUnits: 9 },
      0,
    );
    const left = checkStock({ productId: "p", received: 10, stock: 1, ledgerUnits: 9, liveOrderUnits: 9 }, 1);
    for (const stockAfterSale of [redisAhead, leaked, left, null]) {
      expect(broken(checkSale({ ...sale, stockAfterSale }))).toEqual([name]);
    }
    expect(left.holds).toBe(true); // consistent, just not sold out
    expect(leaked.holds).toBe(false);
  });
});

describe("checkPayment", () => {
  it("holds when every order is paid once by its payment", () => {
    expect(collectChecks(checkPayment(sale, payment)).ok).toBe(true);
  });

  it.each([
    ["a refused payment", { accepted: 9 }, "every payment accepted and applied once"],
    ["a failed payment", { delivery: { ...delivery, failed: 1 } }, "every payment accepted and applied once"],
    [
      "a duplicate",
      { delivery: { ...delivery, exactlyOnce: false } },
      "every payment accepted and applied once",
    ],
  ])("breaks with %s", (_name, change, check) => {
    expect(broken(checkPayment(sale, { ...payment, ...change } as OrderPaymentResult))).toEqual([check]);
  });
});

describe("auditSettlement", () => {
  it("counts an order paid twice, paid by another payment, left unpaid, missing, or unknown", () => {
    const rows = [
      { ...paidRows[0]!, succeededPayments: 2, payments: 2 },
      { ...paidRows[1]!, paymentId: "pay_other" },
      { ...paidRows[2]!, status: "awaiting_payment", paymentId: null, succeededPayments: 0, payments: 0 },
      ...paidRows.slice(3, 9),
      { id: "ord_x", status: "paid", paymentId: null, payments: 0, succeededPayments: 0 },
    ];
    expect(auditSettlement(orderIds, payments, rows)).toEqual({
      orders: 10,
      rows: 10,
      missing: 1,
      unconfirmed: 1,
      statuses: { paid: 8, awaiting_payment: 1 },
      paidOnce: 6,
      paidTwice: 1,
      paidByAnother: 1,
      ok: false,
    });
  });

  it("holds for every order paid once", () => {
    expect(auditSettlement(orderIds, payments, paidRows).ok).toBe(true);
  });
});
