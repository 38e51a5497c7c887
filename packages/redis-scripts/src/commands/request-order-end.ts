import { luaScript } from "../lua-script.ts";

export interface RequestOrderEndInput {
  /** {p}:order:<orderId>, the order's state (written when it was accepted). */
  orderStateKey: string;
  /** {p}:op:<endId>, the end request's status hash. */
  statusKey: string;
  /** {p}:ops, the order's partition stream. */
  streamKey: string;
  /** The end request's id (ocx_..., minted by the caller in the order's bucket). */
  endId: string;
  orderId: string;
  /** "cancelled" | "expired". */
  reason: string;
  /** Epoch ms. */
  createdAt: number;
  /** Only this user's order may end; undefined: any (the shop's server, the expiry job). */
  ownerUserId?: string | undefined;
}

export interface RequestOrderEndResult {
  /** 1 requested, 0 already requested, -1 no such order (or another user's), -2 the order already ended. */
  code: number;
  /** Requested (now or before): the end request's id; "" otherwise. */
  endId: string;
}

/** request-order-end-3.lua: one `order_cancel` message on the order's partition stream, for the first request. */
export const requestOrderEnd = luaScript({
  file: "request-order-end-3.lua",
  keys: (input: RequestOrderEndInput) => [input.orderStateKey, input.statusKey, input.streamKey],
  args: (input: RequestOrderEndInput) => [
    input.endId,
    input.orderId,
    input.reason,
    input.createdAt,
    input.ownerUserId ?? "",
  ],
  decode: ([code, endId]: [number, string]): RequestOrderEndResult => ({ code, endId }),
});
