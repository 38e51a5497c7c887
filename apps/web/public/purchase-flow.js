// One "Buy now" of the signed-in shopper: reserve the unit (the waiting room may queue the shopper first: the SDK
// joins it, reports the place, and resubmits once admitted), top the wallet up if it is short (demo wallets
// start empty; the demo's server-side deposit funds it), pay the order, and end on a final state in words.
// Every step shows on the page as it happens. No call names the shopper: the token does.
import { refusalMessage } from "./refusal-message.js";

/** @typedef {import("./stock-poll.js").Checkout} Checkout */
/** @typedef {import("./checkout-steps.js").CheckoutSteps} CheckoutSteps */
/** @typedef {import("./checkout-steps.js").StepName} StepName */
/** @typedef {import("./demo-session.js").DemoSession} DemoSession */

/** How long the page waits for one operation's final status before it says so (the SDK keeps no spinner). */
const OPERATION_TIMEOUT_MS = 120_000;

/** Once the order has an answer, the queue step says whether the shopper queued at all. */
function settleQueue(/** @type {CheckoutSteps} */ steps) {
  const queued = steps.state("queue");
  if (queued === "idle") steps.set("queue", "skipped", "not queued: no room guards orders now");
  if (queued === "active") steps.set("queue", "failed", "left the queue");
}

/**
 * Resolves with the order's id once it is paid, else null.
 * @param {{ checkout: Checkout; session: DemoSession; steps: CheckoutSteps; productId: string;
 *           formatAmount(amount: number): string }} purchase
 * @returns {Promise<string | null>}
 */
export async function buyOne({ checkout, session, steps, productId, formatAmount }) {
  steps.start();
  /** @type {StepName} */
  let current = "order";
  try {
    steps.set("order", "active", "placing the order…");
    const order = checkout.placeOrder({ items: [{ productId, quantity: 1 }] });
    order.on("position", (place) => {
      steps.queuePosition(place);
      steps.set("order", "active", "sent once it is your turn");
    });
    order.on("admitted", (admission) => {
      steps.queueAdmitted(admission);
      steps.set("order", "active", "placing the order…");
    });
    const placed = await order.result({ timeoutMs: OPERATION_TIMEOUT_MS });
    settleQueue(steps);
    if (placed.status !== "awaiting_payment") {
      steps.set("order", "failed", `order ${placed.id} is ${placed.status}`);
      steps.finish("refused", "Order not payable:", `order ${placed.id} is ${placed.status}.`);
      return null;
    }
    steps.set("order", "done", `order ${placed.id} reserved, ${formatAmount(placed.amount)} to pay`);

    current = "deposit";
    const wallet = await checkout.wallet(session.userId);
    if (wallet.balance >= placed.amount) {
      steps.set("deposit", "skipped", `the wallet holds ${formatAmount(wallet.balance)}: enough`);
    } else {
      const missing = placed.amount - wallet.balance;
      steps.set("deposit", "active", `depositing ${formatAmount(missing)}…`);
      const deposit = await session.fund(missing);
      steps.set("deposit", "done", `deposit ${deposit.id} of ${formatAmount(missing)} succeeded`);
    }

    current = "payment";
    steps.set("payment", "active", "paying…");
    const payment = checkout.pay({ amount: placed.amount, orderId: placed.id });
    // Paying is guarded too: an admission that lapsed meanwhile queues the shopper again.
    payment.on("position", (place) => steps.queuePosition(place));
    payment.on("admitted", (admission) => steps.queueAdmitted(admission));
    const paid = await payment.result({ timeoutMs: OPERATION_TIMEOUT_MS });
    steps.set("payment", "done", `payment ${paid.id} succeeded`);
    steps.finish("paid", "Paid.", `Order ${placed.id} is paid (${formatAmount(placed.amount)}).`);
    return placed.id;
  } catch (error) {
    const refusal = refusalMessage(error);
    if (current === "order") settleQueue(steps);
    steps.set(current, "failed", `${refusal.title} ${refusal.detail}`);
    steps.finish(refusal.kind, refusal.title, refusal.detail);
    return null;
  }
}
