// What the shard decides for each payment and deposit of a batch, from the locked balances and orders: no
// query here. A payment whose order is not on the shard yet may be left out to wait for it (pay-orders.ts).
import type { FailureReason, MoneyOperationMessage } from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import type { OrderPayments } from "../orders/pay-orders.ts";

export interface MoneyDecision {
  message: MoneyOperationMessage;
  status: FinalStatus["status"];
  failureReason?: FailureReason;
}

/**
 * Decides the messages in order, debiting and crediting `balances` as it goes. `applied` are the ids already
 * on the shard (redeliveries, skipped like a repeated id of the batch).
 */
export function decideMoneyOperations(
  messages: MoneyOperationMessage[],
  balances: Map<string, number>,
  applied: ReadonlySet<string>,
  payable: OrderPayments,
  mayAwaitOrder: boolean,
) {
  const decisions: MoneyDecision[] = [];
  const awaitingOrder: MoneyOperationMessage[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (applied.has(message.id) || seen.has(message.id)) continue;
    seen.add(message.id);
    if (mayAwaitOrder && message.kind === "payment" && payable.awaitsOrder(message)) {
      awaitingOrder.push(message); // left out: no debit, no row, no final status; its worker retries it soon
      continue;
    }
    const current = balances.get(message.userId) ?? 0;
    const orderRefusal = message.kind === "payment" ? payable.refusal(message) : null;
    if (orderRefusal) {
      decisions.push({ message, status: "failed", failureReason: orderRefusal });
    } else if (message.kind === "deposit") {
      balances.set(message.userId, current + message.amount);
      decisions.push({ message, status: "succeeded" });
    } else if (current >= message.amount) {
      balances.set(message.userId, current - message.amount);
      payable.markPaid(message);
      decisions.push({ message, status: "succeeded" });
    } else {
      decisions.push({ message, status: "failed", failureReason: "insufficient_funds" });
    }
  }
  return { decisions, awaitingOrder };
}
