// The payments and deposits of one shard's batch, inside that batch's transaction (called by applyShardBatch).
// Exactly once comes from the primary keys: wallet rows are locked (in user order, so two workers cannot
// deadlock) before the ids already applied are looked up, so a concurrent apply of the same id has committed by
// then and is seen; an insert that still finds a conflict aborts the whole transaction. Balances change by
// delta, once per user.
import type { ShardDatabase } from "@floodgate/db";
import type { MoneyOperationMessage } from "@floodgate/domain";
import type { PaidOrder } from "@floodgate/reservations";
import type { Transaction } from "kysely";
import { OrderPayments } from "../orders/pay-orders.ts";
import type { SubscribedTypes } from "../webhooks/event-recording.ts";
import { decideMoneyOperations, type MoneyDecision } from "./money-decisions.ts";
import { type AppliedRow, findApplied } from "./money-rows.ts";
import { writeMoneyDecisions } from "./money-write.ts";
import { lockWallets } from "./wallet-ledger.ts";

export interface MoneyOperationsApplied {
  /** Decided in this transaction (redeliveries excluded). */
  decisions: MoneyDecision[];
  /** Already on the shard: their recorded outcome. */
  existing: AppliedRow[];
  statements: number;
  /** Orders paid in this transaction. */
  paid: number;
  /** Orders the payments name that are paid (now or before): their unpaid units are settled. */
  paidOrders: PaidOrder[];
  /** Payments left out because their order is not on the shard yet (pay-orders.ts): not applied, not final. */
  awaitingOrder: MoneyOperationMessage[];
}

export const noMoneyOperations = (): MoneyOperationsApplied => ({
  decisions: [],
  existing: [],
  statements: 0,
  paid: 0,
  paidOrders: [],
  awaitingOrder: [],
});

/**
 * `suspects` are the messages that may already be on the shard; only they are looked up (per row, the look-up
 * costs Postgres about as much as the insert, and a first delivery cannot have been applied).
 */
export async function applyMoneyOperations(
  trx: Transaction<ShardDatabase>,
  messages: MoneyOperationMessage[],
  suspects: MoneyOperationMessage[],
  mayAwaitOrder: boolean,
  /** Event types some enabled endpoint wants: the operations' own events go to the outbox too. */
  subscribed: SubscribedTypes,
): Promise<MoneyOperationsApplied> {
  const wallets = await lockWallets(trx, messages);
  let statements = wallets.statements;
  // After the lock: a concurrent apply of the same ids has committed by now, and this statement sees it.
  const existing = suspects.length > 0 ? await findApplied(trx, suspects) : [];
  if (suspects.length > 0) statements += 1;
  const orderLock = await OrderPayments.lock(trx, messages);
  const payable = orderLock.orders;
  statements += orderLock.statements;

  const applied = new Set(existing.map((row) => row.id));
  const { decisions, awaitingOrder } = decideMoneyOperations(
    messages,
    wallets.balances,
    applied,
    payable,
    mayAwaitOrder,
  );
  // Rows, balances and the operations' own events: one statement (money-write.ts).
  statements += await writeMoneyDecisions(trx, decisions, subscribed);
  statements += await payable.write(trx);
  return {
    decisions,
    existing,
    statements,
    paid: payable.paidCount,
    paidOrders: payable.paidOrders(),
    awaitingOrder,
  };
}
