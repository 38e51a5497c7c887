import { luaScript } from "../lua-script.ts";

export interface SettleProductUnitsInput {
  /** {prd_...}:product. */
  productStateKey: string;
  orderId: string;
}

export interface SettleProductUnitsResult {
  /** Lowered by this call; false: settled or released before, never held, or no product state. */
  loweredNow: boolean;
}

/** settle-product-units-1.lua: an order's units of a product stop counting as unpaid, once. */
export const settleProductUnits = luaScript({
  file: "settle-product-units-1.lua",
  keys: (input: SettleProductUnitsInput) => [input.productStateKey],
  args: (input: SettleProductUnitsInput) => [input.orderId],
  decode: (code: number): SettleProductUnitsResult => ({ loweredNow: code === 1 }),
});
