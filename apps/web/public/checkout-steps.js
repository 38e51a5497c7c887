// What the shopper sees of a purchase: the queue line (a polite live region, so a screen reader announces each
// new place without interrupting), one line per step, and the final outcome in words: never a spinner.

/** @typedef {"queue" | "order" | "deposit" | "payment"} StepName */
/** @typedef {"idle" | "active" | "done" | "skipped" | "failed"} StepState */
/** @typedef {"paid" | "refused" | "error"} OutcomeKind */

/** @param {number} seconds */
function waitInWords(seconds) {
  if (seconds < 1) return "any moment now";
  if (seconds < 90) return `about ${Math.ceil(seconds)} ${Math.ceil(seconds) === 1 ? "second" : "seconds"}`;
  return `about ${Math.round(seconds / 60)} minutes`;
}

/** @param {string} selector */
function element(selector) {
  const found = document.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return found;
}

export class CheckoutSteps {
  #queue = element("#queue");
  #outcome = element("#outcome");

  /**
   * A new purchase: every step back to idle, the last outcome cleared. (No aria-busy on the section: it would
   * hold back the queue's announcements until the purchase ended.)
   */
  start() {
    for (const step of /** @type {StepName[]} */ (["queue", "order", "deposit", "payment"])) {
      this.set(step, "idle", "–");
    }
    this.#queue.textContent = "";
    delete this.#queue.dataset.position;
    delete this.#queue.dataset.unitsLeft;
    this.#outcome.textContent = "";
    delete this.#outcome.dataset.outcome;
  }

  /** @param {StepName} step @param {StepState} state @param {string} text */
  set(step, state, text) {
    const line = element(`#steps [data-step="${step}"]`);
    line.dataset.state = state;
    element(`#steps [data-step="${step}"] .state`).textContent = text;
  }

  /** @param {StepName} step */
  state(step) {
    return /** @type {StepState} */ (element(`#steps [data-step="${step}"]`).dataset.state);
  }

  /** @param {{ roomId: string; position: number; etaSeconds: number; unitsLeft?: number }} place */
  queuePosition({ roomId, position, etaSeconds, unitsLeft }) {
    this.#queue.dataset.position = String(position);
    // A room selling the product says how many are left, so nobody waits blind for the last unit.
    const left = unitsLeft === undefined ? "" : ` ${unitsLeft} left.`;
    if (unitsLeft === undefined) delete this.#queue.dataset.unitsLeft;
    else this.#queue.dataset.unitsLeft = String(unitsLeft);
    this.#queue.textContent = `You are number ${position} in line. Estimated wait: ${waitInWords(etaSeconds)}.${left}`;
    this.set("queue", "active", `waiting in room ${roomId}: number ${position}`);
  }

  /** @param {{ roomId: string }} admission */
  queueAdmitted({ roomId }) {
    this.#queue.dataset.position = "0";
    this.#queue.textContent = "It is your turn: you are in.";
    this.set("queue", "done", `admitted by room ${roomId}`);
  }

  /** @param {OutcomeKind} kind @param {string} title @param {string} detail */
  finish(kind, title, detail) {
    this.#outcome.dataset.outcome = kind;
    const strong = document.createElement("strong");
    strong.textContent = title;
    this.#outcome.replaceChildren(strong, document.createTextNode(detail ? ` ${detail}` : ""));
  }
}
