// The stock sale's verdicts from what the shoppers saw and the shards hold: who counts as waiting when the last
// unit was paid, how late each was told, and the checks that fail on an oversell, an admission past the stock,
// or a waiting socket told late or never.
import { describe, expect, it } from "vitest";
import type { Shopper } from "../src/flash-sale/flash-sale-crowd.ts";
import { checkStockSale, summarizeStockSale } from "../src/flash-sale/stock-sale.ts";

const LAST_PAID = 1_000_000;

function shopper(overrides: Partial<Shopper>): Shopper {
  return {
    userId: "u",
    watch: "websocket",
    joinBuiltAt: 0,
    joinAnsweredAt: 0,
    joinStatus: 201,
    joinAttempts: 1,
    ticketId: "t",
    updates: 1,
    socketRequestedAt: 1,
    socketOpenedAt: 2,
    admittedAt: null,
    noticedAt: null,
    paymentStatus: null,
    paymentAttempts: 0,
    paymentId: null,
    paymentLatencyMs: null,
    orderStatus: null,
    soldOutAt: null,
    ...overrides,
  };
}

const sold = { orders: 2, paidOrders: 2, paidUnits: 2, lastPaidAt: LAST_PAID };
const summarize = (shoppers: Shopper[], overrides: Partial<Parameters<typeof summarizeStockSale>[0]> = {}) =>
  summarizeStockSale({
    productId: "prd",
    stock: 2,
    admitBeyondStock: 0,
    admitted: 2,
    shoppers,
    sales: sold,
    ...overrides,
  });
/** Each check's verdict by the first two words of its name ("nobody admitted" -> "nobodyadmitted"). */
const verdicts = (run: ReturnType<typeof summarize>) =>
  Object.fromEntries(
    checkStockSale(run).map((check) => [check.name.split(" ").slice(0, 2).join(""), check.ok]),
  );

describe("a stock sale's summary", () => {
  const buyers = [
    shopper({ noticedAt: 10, admittedAt: 10, orderStatus: 202, paymentStatus: 202 }),
    shopper({ noticedAt: 11, admittedAt: 11, orderStatus: 202, paymentStatus: 202 }),
  ];

  it("holds when every waiting socket is told within a second and nothing is oversold", () => {
    const run = summarize([
      ...buyers,
      shopper({ soldOutAt: LAST_PAID + 120 }),
      shopper({ soldOutAt: LAST_PAID + 900 }),
      // Opened after the moment: told on open, which measures its connection, not the push.
      shopper({ socketOpenedAt: LAST_PAID + 5000, soldOutAt: LAST_PAID + 5001 }),
      shopper({
        watch: "polling",
        socketOpenedAt: null,
        socketRequestedAt: null,
        soldOutAt: LAST_PAID + 1500,
      }),
      shopper({ joinStatus: 410, ticketId: null, socketOpenedAt: null }),
    ]);
    expect(run).toMatchObject({
      waitingSockets: 2,
      toldSoldOut: 2,
      pollersToldSoldOut: 1,
      joinsRefusedSoldOut: 1,
    });
    expect(run.orderStatusCounts).toEqual({ "202": 2 });
    expect(run.soldOutDelayMs?.max).toBe(900);
    expect(checkStockSale(run).every((check) => check.ok === true)).toBe(true);
  });

  it("fails a socket told late, or never", () => {
    const late = summarize([...buyers, shopper({ soldOutAt: LAST_PAID + 1001 })]);
    expect(verdicts(late).everywaiting).toBe(false);
    const never = summarize([...buyers, shopper({}), shopper({ soldOutAt: LAST_PAID + 10 })]);
    expect(never).toMatchObject({ waitingSockets: 2, toldSoldOut: 1 });
    expect(verdicts(never).everywaiting).toBe(false);
  });

  it("fails an admission past the stock and its margin, and an oversell", () => {
    expect(verdicts(summarize(buyers, { admitted: 3 })).nobodyadmitted).toBe(false);
    expect(verdicts(summarize(buyers, { admitted: 3, admitBeyondStock: 1 })).nobodyadmitted).toBe(true);
    const oversold = summarize(buyers, { sales: { ...sold, paidOrders: 3, paidUnits: 3 } });
    expect(oversold.oversold).toBe(1);
    expect(verdicts(oversold)["0oversold"]).toBe(false);
  });

  it("fails a sale that stopped before its last unit, and has no push check without a waiting socket", () => {
    const unsold = summarize(buyers, { sales: { ...sold, paidOrders: 1, paidUnits: 1 } });
    expect(verdicts(unsold).everyunit).toBe(false);
    expect(verdicts(summarize(buyers)).everywaiting).toBeNull();
  });
});
