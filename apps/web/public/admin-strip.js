// The operator's strip: set up the demo product, open and close the room, restock, and send a crowd into the
// queue, so one person can run a whole flash sale. Plain fetch on the admin routes with the key the operator
// pasted (kept in this tab's sessionStorage only): configuration only. The crowd are shoppers like any other:
// each signs in through the demo's login and joins the room with its own token.
import { crowdToken } from "./demo-session.js";

const KEY_STORAGE = "floodgate-demo:admin-key";
const DEMO_PRODUCT = { name: "Floodgate flash-sale sneaker", price: 49_000, stock: 10 };
const RESTOCK_UNITS = 10;
const CROWD_SIZE = 40; // within the per-IP burst of room joins
const SESSION_SECONDS = 120;
const ROOM_GUARDS = ["orders", "payments"];

/** @param {string} selector */
function element(selector) {
  const found = document.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return found;
}

/** @param {Response} response */
async function problemText(response) {
  const body = await response.json().catch(() => null);
  return `${response.status} ${body?.detail ?? body?.title ?? response.statusText}`;
}

/**
 * @param {{ roomId: string; productId(): string | null; onProduct(productId: string): void;
 *           onStockChanged(): void; refundLastOrder(): Promise<string> }} store
 */
export function mountAdminStrip(store) {
  const keyInput = /** @type {HTMLInputElement} */ (element("#admin-key"));
  const rateInput = /** @type {HTMLInputElement} */ (element("#admit-rate"));
  const status = element("#admin-status");
  const summary = element("#room-summary");
  element("#room-id").textContent = store.roomId;
  keyInput.value = sessionStorage.getItem(KEY_STORAGE) ?? "";

  /** @param {string} method @param {string} path @param {unknown} [body] */
  const admin = async (method, path, body) => {
    const key = keyInput.value.trim();
    if (!key) throw new Error("paste the admin key that ./floodgate start printed first");
    const response = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(await problemText(response));
    return response.json();
  };

  const showRoom = async () => {
    if (!keyInput.value.trim()) return;
    try {
      const room = await admin("GET", `/v1/rooms/${store.roomId}`);
      summary.textContent = `${room.mode === "off" ? "closed" : `open (${room.mode})`}, ${room.waiting} waiting, admits ${room.admitPerSecond}/s`;
    } catch (error) {
      summary.textContent = String(error).includes("404") ? "closed (not defined yet)" : String(error);
    }
  };

  /** @param {string} buttonId @param {() => Promise<string>} action */
  const onClick = (buttonId, action) => {
    const button = /** @type {HTMLButtonElement} */ (element(buttonId));
    button.addEventListener("click", async () => {
      button.disabled = true;
      status.textContent = "";
      try {
        status.textContent = await action();
      } catch (error) {
        status.textContent = `Failed: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        button.disabled = false;
        void showRoom();
      }
    });
  };

  /** @param {"on" | "off"} mode */
  const putRoom = (mode) =>
    admin("PUT", `/v1/rooms/${store.roomId}`, {
      mode,
      admitPerSecond: Math.max(1, Math.floor(Number(rateInput.value) || 1)),
      sessionSeconds: SESSION_SECONDS,
      guards: ROOM_GUARDS,
    });

  keyInput.addEventListener("change", () => {
    sessionStorage.setItem(KEY_STORAGE, keyInput.value.trim());
    void showRoom();
  });

  onClick("#setup-product", async () => {
    const product = await admin("POST", "/v1/products", DEMO_PRODUCT);
    store.onProduct(product.id);
    return `Product ${product.id} created with ${product.stock} in stock.`;
  });
  onClick("#open-room", async () => {
    const room = await putRoom("on");
    return `Room ${room.roomId} open: orders and payments queue, ${room.admitPerSecond} admitted per second.`;
  });
  onClick("#close-room", async () => {
    await putRoom("off");
    return `Room ${store.roomId} closed: nobody queues.`;
  });
  onClick("#restock", async () => {
    const productId = store.productId();
    if (!productId) throw new Error("set up a product first");
    const product = await admin("PATCH", `/v1/products/${productId}`, { stockAdded: RESTOCK_UNITS });
    store.onStockChanged();
    return `Restocked: ${product.available ?? "?"} available now.`;
  });
  // Not an admin call: the admin key configures, it moves no money. The demo's server refunds the signed-in
  // shopper's last paid order (DEMO_LOGIN's /demo/refunds), as a shop's server would on a return.
  onClick("#refund-order", () => store.refundLastOrder());
  onClick("#crowd", async () => {
    const tag = Date.now().toString(36);
    const joins = await Promise.all(
      Array.from({ length: CROWD_SIZE }, async (_, i) =>
        fetch(`/v1/rooms/${store.roomId}/tickets`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${await crowdToken(`crowd-${tag}-${i}`)}`,
            "content-type": "application/json",
          },
          body: "{}",
        }),
      ),
    );
    const joined = joins.filter((response) => response.ok).length;
    if (joined === 0) throw new Error(await problemText(joins[0] ?? new Response(null, { status: 500 })));
    return `${joined} shoppers joined the queue of room ${store.roomId}; Buy now to stand behind them.`;
  });

  void showRoom();
  setInterval(() => void showRoom(), 2000);
}
