import { luaScript } from "../lua-script.ts";

export interface ChangeProductInput {
  /** {prd_...}:product, the product's state. */
  productStateKey: string;
  /** The new price; undefined keeps it. */
  price?: number | undefined;
  /** Units added to `available` (an increment: what orders reserved meanwhile stays reserved); 0 for none. */
  stockAdded: number;
  /** The new per-user cap on unpaid units; undefined keeps it. */
  maxUnitsPerUser?: number | undefined;
}

export interface ChangeProductResult {
  /** 1 changed, -1 the product has no state (nothing written). */
  code: number;
  /** `available` after the change (0 when there is no state). */
  available: number;
}

/** change-product-1.lua: an admin change to a product's Redis state, only when that state exists. */
export const changeProduct = luaScript({
  file: "change-product-1.lua",
  keys: (input: ChangeProductInput) => [input.productStateKey],
  args: (input: ChangeProductInput) => [input.price ?? "", input.stockAdded, input.maxUnitsPerUser ?? ""],
  decode: ([code, available]: [number, number]): ChangeProductResult => ({ code, available }),
});
