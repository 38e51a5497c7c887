// Orders whose view another operation may have moved in a batch: paid by a payment (from a wallet or at the
// shop's provider) that succeeded, or ended
// by an end request (the shard may have refused it, the order being paid first; a needless re-read costs a
// watcher little). Published with the final statuses so an order's status socket hears of paid, cancelled
// and expired, not only of its placing (which its own id's status announces). Taken from the statuses, so a
// redelivered batch announces them again: its first publish may not have happened.
import type { OperationMessage } from "@floodgate/domain";
import type { FinalStatus, OrderChange } from "@floodgate/queue";

export function ordersChangedBy(statuses: FinalStatus[], messages: OperationMessage[]): OrderChange[] {
  const orderOf = new Map<string, string>();
  for (const message of messages) {
    if (message.kind === "order_cancel") orderOf.set(message.id, message.orderId);
    else if (message.kind === "payment" && message.orderId !== undefined)
      orderOf.set(message.id, message.orderId);
    else if (message.kind === "provider_payment") orderOf.set(message.id, message.orderId);
  }
  if (orderOf.size === 0) return [];
  const changes: OrderChange[] = [];
  for (const final of statuses) {
    const orderId = orderOf.get(final.id);
    if (orderId !== undefined && final.status === "succeeded")
      changes.push({ id: orderId, changedBy: final.id });
  }
  return changes;
}
