// A failed purchase in words a shopper understands: the SDK's typed errors carry the server's problem+json, so
// a refusal (sold out, not enough money) reads differently from a network that never answered.
import {
  AuthenticationError,
  FloodgateError,
  InsufficientFundsError,
  OutOfStockError,
  RoomSoldOutError,
  SoldOutError,
  ValidationError,
} from "@floodgate/checkout-sdk";

/**
 * @typedef {object} Refusal
 * @property {"refused" | "error"} kind  refused: the server said no; error: no final answer came
 * @property {string} title
 * @property {string} detail
 */

/** @param {unknown} error @returns {Refusal} */
export function refusalMessage(error) {
  if (error instanceof AuthenticationError) {
    return { kind: "refused", title: "Signed out:", detail: "sign in again to buy." };
  }
  if (error instanceof OutOfStockError || error instanceof SoldOutError) {
    return { kind: "refused", title: "Sold out.", detail: "Every unit is taken. The operator can restock." };
  }
  if (error instanceof RoomSoldOutError) {
    return {
      kind: "refused",
      title: "Sold out.",
      detail: "The last unit of this drop is gone: the queue is closed.",
    };
  }
  if (error instanceof InsufficientFundsError) {
    return { kind: "refused", title: "Payment refused:", detail: "the wallet does not hold enough." };
  }
  if (error instanceof ValidationError) {
    return { kind: "refused", title: "Request refused:", detail: `${error.field} is not valid.` };
  }
  if (error instanceof FloodgateError && (error.code === "network_error" || error.problem.retryable)) {
    // The SDK already retried with the same key: nothing was refused, the answer just never came.
    const title = error.code === "network_error" ? "Could not reach the store." : "The store is busy.";
    return { kind: "error", title, detail: "Nothing was charged twice; press Buy now to try again." };
  }
  if (error instanceof FloodgateError) {
    const detail = error.problem?.detail ?? error.message;
    return { kind: "refused", title: `Refused (${error.code}):`, detail };
  }
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return {
      kind: "error",
      title: "No final answer yet.",
      detail: "The server is still working; try again.",
    };
  }
  return {
    kind: "error",
    title: "Could not reach the store.",
    detail: error instanceof Error ? error.message : String(error),
  };
}
