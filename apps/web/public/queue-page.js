// The demo's room page, where the gate (/demo/drop, demo-room-gate.ts in the intake) sends a shopper without an
// admission: it signs the shopper in, queues at once with the SDK's joinRoom (a reload follows the same ticket),
// shows the place, and once admitted goes through the gate's route for the room, which sets its cookie and
// opens the page asked for (?return=, the product page's own link, which names the room and the shopper).
import { createCheckout } from "@floodgate/checkout-sdk";
import { signIn } from "./demo-session.js";

const back = new URLSearchParams(location.search).get("return") ?? "/demo/drop";
const link = new URL(back, location.origin).searchParams;
const roomId = link.get("room") ?? "demo";
const shopperId = link.get("shopper") ?? "";

/** @param {string} selector */
const element = (selector) => /** @type {HTMLElement} */ (document.querySelector(selector));
const state = element("#queue-state");
element("#room").textContent = roomId;
element("#shopper").textContent = shopperId;

try {
  const session = await signIn(shopperId);
  const checkout = createCheckout({ baseUrl: "", getToken: session.getToken });
  const room = checkout.joinRoom(roomId, { gatePath: `/demo/rooms/${encodeURIComponent(roomId)}/admit` });
  room.on("position", ({ position, etaSeconds, unitsLeft }) => {
    element("#position").textContent = String(position);
    element("#position").dataset.position = String(position);
    element("#eta").textContent = `(about ${etaSeconds} s)`;
    state.textContent = unitsLeft === undefined ? "Waiting for your turn." : `${unitsLeft} left.`;
  });
  room.on("sold_out", () => {
    state.textContent = "Sold out while you waited. A restock lets the line move again.";
  });
  room.on("closed", () => {
    state.textContent = "The room has closed.";
  });
  room.on("error", (error) => {
    state.textContent = `You lost your place: ${error.message}`;
  });
  room.on("admitted", () => {
    state.textContent = "Your turn: opening the store…";
    room.enterGate(back);
  });
} catch (error) {
  state.textContent = `Could not join the line: ${error instanceof Error ? error.message : error}`;
}
document.body.dataset.ready = "true";
