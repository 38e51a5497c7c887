import { luaScript } from "../lua-script.ts";

/** One product's units held for an order, in the product's slot. */
export interface StockReservation {
  product: {
    /** {prd_...}:product: price, available, maxUnitsPerUser. */
    stateKey: string;
    /** {prd_...}:reservations: "<order id> <user id> <units>" -> reserved at (epoch ms). */
    reservationsKey: string;
  };
  orderId: string;
  userId: string;
  /** Units of this product in the order (all its lines). */
  units: number;
}

export interface HeldStock {
  /** The product's unit price, for the commit's amount. */
  price: number;
  /** The product's own per-user cap; null: the default applies. */
  maxUnitsPerUser: number | null;
  /** The product master's TIME at the reservation. */
  reservedAtMs: number;
}

export interface ReserveStockResult {
  /** 1 held; -2 unknown product; -3 not enough stock (reserve-order-n.lua's numbering). */
  code: number;
  /** For -3: the units left. */
  value: string;
  /** What the commit needs of the product, when held. */
  held: HeldStock | null;
}

/** reserve-stock-2.lua: one product's half of a two-step order (known, enough stock; holds the units). */
export const reserveStock = luaScript({
  file: "reserve-stock-2.lua",
  keys: ({ product }: StockReservation) => [product.stateKey, product.reservationsKey],
  args: (input: StockReservation) => [input.orderId, input.userId, input.units],
  decode: ([code, value, cap, reservedAtMs]: [number, string, string?, number?]): ReserveStockResult =>
    code === 1
      ? {
          code,
          value: "",
          held: {
            price: Number(value),
            maxUnitsPerUser: cap === undefined || cap === "" ? null : Number(cap),
            reservedAtMs: Number(reservedAtMs),
          },
        }
      : { code, value: String(value), held: null },
});
