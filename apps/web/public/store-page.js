// The demo store's entry: one SDK instance for the shop calls (same origin as the API), the product with its
// live stock, the Buy now button, and the admin strip.
import { createCheckout, FloodgateError } from "@floodgate/checkout-sdk";
import { mountAdminStrip } from "./admin-strip.js";
import { CheckoutSteps } from "./checkout-steps.js";
import { formatMoney } from "./money-format.js";
import { buyOne } from "./purchase-flow.js";
import { watchStock } from "./stock-poll.js";
import { newShopperId, readStoreLocation, rememberProduct } from "./store-location.js";

/** @typedef {import("./stock-poll.js").CatalogProduct} CatalogProduct */

/** @param {string} selector */
function element(selector) {
  const found = document.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return found;
}

const where = readStoreLocation();
const checkout = createCheckout({ baseUrl: location.origin });
const steps = new CheckoutSteps();
const buyButton = /** @type {HTMLButtonElement} */ (element("#buy"));
let productId = where.productId;
let shopperId = where.shopperId;
/** @type {CatalogProduct | null} */
let product = null;
let buying = false;
/** @type {ReturnType<typeof watchStock> | null} */
let stock = null;

const formatAmount = (/** @type {number} */ amount) => formatMoney(amount, product?.currency ?? "KRW");

function showShopper() {
  element("#shopper").textContent = shopperId;
}

/** @param {CatalogProduct} latest */
function showProduct(latest) {
  product = latest;
  element("#product-name").textContent = latest.name;
  element("#product-note").textContent = `Product ${latest.id}`;
  element("#price").textContent = formatAmount(latest.price);
  element("#stock").textContent = String(latest.available);
  // Buy now stays enabled at 0: the page's figure may lag, and the server has the last word (a refusal).
  element("#stock-note").textContent = latest.available === 0 ? "Sold out: the operator can restock." : "";
  buyButton.disabled = buying;
}

/** @param {unknown} error */
function showStockError(error) {
  if (error instanceof FloodgateError && (error.status === 404 || error.status === 400)) {
    // A link or a remembered id from another deployment (or a reset database): say what to do instead.
    stock?.stop();
    product = null;
    element("#product-name").textContent = "Product not found";
    element("#product-note").textContent =
      `No product ${productId} here: set up a demo product in the admin strip.`;
    buyButton.disabled = true;
    return;
  }
  element("#stock-note").textContent =
    `(stock not refreshed: ${error instanceof Error ? error.message : error})`;
}

/** @param {string} id */
function watchProduct(id) {
  stock?.stop();
  productId = id;
  stock = watchStock(checkout, id, { onProduct: showProduct, onError: showStockError });
}

buyButton.addEventListener("click", async () => {
  if (!productId || buying) return;
  buying = true;
  buyButton.disabled = true;
  try {
    await buyOne({ checkout, steps, productId, shopperId, formatAmount });
  } finally {
    buying = false;
    buyButton.disabled = false;
    stock?.refresh();
  }
});

element("#new-shopper").addEventListener("click", () => {
  shopperId = newShopperId();
  showShopper();
});

mountAdminStrip({
  roomId: where.roomId,
  productId: () => productId,
  onProduct(id) {
    rememberProduct(id);
    watchProduct(id);
  },
  onStockChanged: () => stock?.refresh(),
});

showShopper();
if (productId) watchProduct(productId);
document.body.dataset.ready = "true";
