import { luaScript } from "../lua-script.ts";
import type { StockReservation } from "./reserve-stock.ts";

/**
 * release-stock-2.lua: gives back the units a reservation held when its order was not recorded. true released,
 * false nothing listed (released before, or the order was confirmed).
 */
export const releaseStock = luaScript({
  file: "release-stock-2.lua",
  keys: ({ product }: StockReservation) => [product.stateKey, product.reservationsKey],
  args: (input: StockReservation) => [input.orderId, input.userId, input.units],
  decode: (released: number): boolean => released === 1,
});
