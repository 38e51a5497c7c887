// Live stock: the public catalog route about once a second. A failed read keeps the last figure on screen and
// says why; the next tick tries again.

/** @typedef {ReturnType<typeof import("@floodgate/checkout-sdk").createCheckout>} Checkout */
/** @typedef {Awaited<ReturnType<Checkout["product"]>>} CatalogProduct */

const POLL_INTERVAL_MS = 1000;

/**
 * @param {Checkout} checkout
 * @param {string} productId
 * @param {{ onProduct(product: CatalogProduct): void; onError(error: unknown): void }} listeners
 */
export function watchStock(checkout, productId, listeners) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let reading = false;
  let stopped = false;

  const read = async () => {
    clearTimeout(timer);
    if (reading || stopped) return;
    reading = true;
    try {
      listeners.onProduct(await checkout.product(productId));
    } catch (error) {
      listeners.onError(error);
    } finally {
      reading = false;
      if (!stopped) timer = setTimeout(read, POLL_INTERVAL_MS);
    }
  };
  void read();

  return {
    /** Reads at once (after a purchase or a restock) rather than at the next tick. */
    refresh: () => void read(),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
