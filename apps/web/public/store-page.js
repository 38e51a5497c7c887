// The demo store's entry: the sign-in as a shopper (one SDK instance per signed-in shopper, its getToken the
// demo session's), the product with its live stock (the public catalogue, read without a token), the Buy now
// button, and the admin strip. Same origin as the API: no CORS.
import { createCheckout, FloodgateError } from "@floodgate/checkout-sdk";
import { mountAdminStrip } from "./admin-strip.js";
import { CheckoutSteps } from "./checkout-steps.js";
import { signIn } from "./demo-session.js";
import { formatMoney } from "./money-format.js";
import { buyOne } from "./purchase-flow.js";
import { watchStock } from "./stock-poll.js";
import { newShopperId, readStoreLocation, rememberProduct, rememberShopper } from "./store-location.js";

/** @typedef {import("./stock-poll.js").CatalogProduct} CatalogProduct */

/** @param {string} selector */
function element(selector) {
  const found = document.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return found;
}

const where = readStoreLocation();
/** The catalogue is public: the stock is read before anyone signs in. */
const catalog = createCheckout({ baseUrl: location.origin });
const steps = new CheckoutSteps();
const buyButton = /** @type {HTMLButtonElement} */ (element("#buy"));
const shopperInput = /** @type {HTMLInputElement} */ (element("#shopper-id"));
const signInButton = /** @type {HTMLButtonElement} */ (element("#sign-in"));
let productId = where.productId;
/** @type {{ session: import("./demo-session.js").DemoSession; checkout: import("./stock-poll.js").Checkout } | null} */
let shopper = null;
/** @type {CatalogProduct | null} */
let product = null;
let buying = false;
/** @type {ReturnType<typeof watchStock> | null} */
let stock = null;
/** The signed-in shopper's last paid order, for the admin strip's refund button. @type {string | null} */
let lastPaidOrder = null;

const formatAmount = (/** @type {number} */ amount) => formatMoney(amount, product?.currency ?? "KRW");

function updateBuyButton() {
  buyButton.disabled = buying || !shopper || !product;
}

/** @param {string} userId */
async function signInAs(userId) {
  signInButton.disabled = true;
  const status = element("#signed-in");
  status.textContent = `Signing in as ${userId}…`;
  try {
    const session = await signIn(userId);
    // A new checkout per shopper: the token and any admission tokens belong to this one.
    shopper = { session, checkout: createCheckout({ baseUrl: location.origin, getToken: session.getToken }) };
    lastPaidOrder = null;
    rememberShopper(session.userId);
    status.textContent = `Signed in as ${session.userId}.`;
    status.dataset.user = session.userId;
    element("#shopper").textContent = session.userId;
  } catch (error) {
    shopper = null;
    delete status.dataset.user;
    status.textContent = error instanceof Error ? error.message : String(error);
    element("#shopper").textContent = "not signed in";
  } finally {
    signInButton.disabled = false;
    updateBuyButton();
  }
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
  updateBuyButton();
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
    updateBuyButton();
    return;
  }
  element("#stock-note").textContent =
    `(stock not refreshed: ${error instanceof Error ? error.message : error})`;
}

/** @param {string} id */
function watchProduct(id) {
  stock?.stop();
  productId = id;
  stock = watchStock(catalog, id, { onProduct: showProduct, onError: showStockError });
}

buyButton.addEventListener("click", async () => {
  if (!productId || !shopper || buying) return;
  buying = true;
  updateBuyButton();
  try {
    lastPaidOrder = (await buyOne({ ...shopper, steps, productId, formatAmount })) ?? lastPaidOrder;
  } finally {
    buying = false;
    updateBuyButton();
    stock?.refresh();
  }
});

element("#sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void signInAs(shopperInput.value.trim());
});

element("#new-shopper").addEventListener("click", () => {
  shopperInput.value = newShopperId();
  void signInAs(shopperInput.value);
});

mountAdminStrip({
  roomId: where.roomId,
  productId: () => productId,
  onProduct(id) {
    rememberProduct(id);
    watchProduct(id);
  },
  onStockChanged: () => stock?.refresh(),
  async refundLastOrder() {
    if (!shopper || !lastPaidOrder) throw new Error("buy something first: there is no paid order to refund");
    const { refundId, order } = await shopper.session.refund(lastPaidOrder);
    lastPaidOrder = null;
    stock?.refresh();
    return `Refunded: order ${order.id} is ${order.status} (refund ${refundId}), its unit back in stock.`;
  },
});

shopperInput.value = where.shopperId;
if (productId) watchProduct(productId);
document.body.dataset.ready = "true";
