import { luaScript } from "../lua-script.ts";

export interface ReturnStockInput {
  /** {prd_...}:product. */
  productStateKey: string;
  /** {prd_...}:returned:<orderId>: set by the first return, so a redelivered one changes nothing. */
  markerKey: string;
  /** Units back to `available`. */
  units: number;
  /** Longer than any redelivery. */
  markerTtlSeconds: number;
  /** The order whose units of the product stop counting as unpaid. */
  orderId: string;
}

export interface ReturnStockResult {
  /** Returned by this call; false: returned before. */
  returnedNow: boolean;
}

/** return-stock-2.lua: on a Redis Cluster, an ended order's units of one product back to its stock, once. */
export const returnStock = luaScript({
  file: "return-stock-2.lua",
  keys: (input: ReturnStockInput) => [input.productStateKey, input.markerKey],
  args: (input: ReturnStockInput) => [input.units, input.markerTtlSeconds, input.orderId],
  decode: (code: number): ReturnStockResult => ({ returnedNow: code === 1 }),
});
