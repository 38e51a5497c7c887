// Where the page finds its product, room and shopper: the URL first (a link an operator shares, the tests),
// then what this browser remembered (the product the admin strip set up; the shopper id last signed in as in
// this tab: the id only, never a token).

const PRODUCT_KEY = "floodgate-demo:product";
const SHOPPER_KEY = "floodgate-demo:shopper";
export const DEFAULT_ROOM_ID = "demo";

/**
 * @typedef {object} StoreLocation
 * @property {string | null} productId
 * @property {string} roomId
 * @property {string} shopperId  the id the sign-in form starts with
 */

/** @returns {StoreLocation} */
export function readStoreLocation() {
  const query = new URLSearchParams(location.search);
  const productId = query.get("product") || localStorage.getItem(PRODUCT_KEY);
  const roomId = query.get("room") || DEFAULT_ROOM_ID;
  const shopperId = query.get("shopper") || sessionStorage.getItem(SHOPPER_KEY) || newShopperId();
  return { productId, roomId, shopperId };
}

/** Remembers the product for the next visit and puts it in the address bar, so the link can be shared. */
export function rememberProduct(/** @type {string} */ productId) {
  localStorage.setItem(PRODUCT_KEY, productId);
  const url = new URL(location.href);
  url.searchParams.set("product", productId);
  history.replaceState(null, "", url);
}

/** The shopper this tab signed in as, offered again on the next visit. */
export function rememberShopper(/** @type {string} */ shopperId) {
  sessionStorage.setItem(SHOPPER_KEY, shopperId);
}

/** A fresh shopper id: demo wallets start empty, so each newcomer deposits before paying. */
export function newShopperId() {
  // getRandomValues, not randomUUID: the page may be served over plain http on a LAN address.
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return `shopper-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
