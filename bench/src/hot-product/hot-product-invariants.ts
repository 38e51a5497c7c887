// The hot-product invariants as named checks, each with what was measured: exactly the stock sold, the rest
// and the next order refused with 409, the stock invariant once the queue is drained (after the sale and
// after the payments), and every order paid exactly once. Pure, so each rule is tested on its own.

import { formatCount } from "../harness/progress-line.ts";
import type { SaleResult } from "./hot-product-sale.ts";
import type { OrderPaymentResult } from "./order-payment-phase.ts";
import type { StockCheck } from "./product-stock-check.ts";

export interface InvariantCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface HotProductInvariants {
  checks: InvariantCheck[];
  ok: boolean;
}

export const collectChecks = (checks: InvariantCheck[]): HotProductInvariants => ({
  checks,
  ok: checks.every((check) => check.ok),
});

/** With everything sold and recorded: Postgres and Redis at zero, every unit in a live order. */
function soldOutCheck(name: string, state: StockCheck | null, stock: number): InvariantCheck {
  if (state === null) return { name, ok: false, detail: "not read" };
  return {
    name,
    ok:
      state.holds &&
      state.received === stock &&
      state.stock === 0 &&
      state.liveOrderUnits === stock &&
      state.available === 0,
    detail: `received ${formatCount(state.received)} = Postgres stock ${formatCount(state.stock)} + units in live orders ${formatCount(state.liveOrderUnits)}; ledger ${formatCount(state.ledgerUnits)}; Redis available ${state.available ?? "missing"}`,
  };
}

export function checkSale(sale: SaleResult): InvariantCheck[] {
  const refusedExpected = sale.responses - sale.accepted;
  return [
    {
      name: "exactly the stock sold",
      ok: sale.accepted === sale.stock && sale.uniqueOrderIds === sale.stock,
      detail: `${formatCount(sale.accepted)} orders accepted (${formatCount(sale.uniqueOrderIds)} distinct ids) for ${formatCount(sale.stock)} units`,
    },
    {
      name: "every other order refused with 409",
      ok: sale.failures === 0 && sale.responses === sale.requests && sale.outOfStock === refusedExpected,
      detail: `409 ${formatCount(sale.outOfStock)} of ${formatCount(sale.responses)} responses to ${formatCount(sale.requests)} orders; other answers and errors ${sale.failures}`,
    },
    {
      name: "the next order 409 out_of_stock",
      ok: sale.nextOrder?.status === 409 && sale.nextOrder.code === "out_of_stock",
      detail:
        sale.nextOrder === null ? "not sent" : `${sale.nextOrder.status} ${sale.nextOrder.code ?? ""}`.trim(),
    },
    {
      name: "every accepted order recorded",
      ok: sale.ordersRecorded.complete && sale.ordersRecorded.rows === sale.accepted,
      detail: `${formatCount(sale.ordersRecorded.rows)} order rows for ${formatCount(sale.accepted)} accepted, ${(sale.ordersRecorded.waitedMs / 1000).toFixed(1)} s after the last response`,
    },
    soldOutCheck("stock invariant after the sale (queue drained)", sale.stockAfterSale, sale.stock),
  ];
}

export function checkPayment(sale: SaleResult, payment: OrderPaymentResult): InvariantCheck[] {
  const { delivery, settlement } = payment;
  const statuses = Object.entries(settlement.statuses)
    .map(([status, n]) => `${status} ${formatCount(n)}`)
    .join(", ");
  return [
    {
      name: "every payment accepted and applied once",
      ok:
        payment.accepted === payment.orders &&
        payment.allApplied &&
        delivery.exactlyOnce &&
        delivery.failed === 0 &&
        delivery.unconfirmedRows === 0,
      detail: `${formatCount(payment.accepted)} of ${formatCount(payment.orders)} accepted; applied once ${formatCount(delivery.appliedOnce)}, missing ${delivery.missing}, duplicated ${delivery.duplicated + delivery.duplicateAcceptedIds}, failed ${delivery.failed}, unconfirmed ${delivery.unconfirmedRows}`,
    },
    {
      name: "every order paid once, by its payment",
      ok: settlement.ok,
      detail: `${formatCount(settlement.rows)} orders (${statuses || "none"}); paid once ${formatCount(settlement.paidOnce)}, twice ${settlement.paidTwice}, by another payment ${settlement.paidByAnother}, missing ${settlement.missing}, unconfirmed ${settlement.unconfirmed}`,
    },
    soldOutCheck("stock invariant after the payments", payment.stockAfterPayment, sale.stock),
  ];
}
