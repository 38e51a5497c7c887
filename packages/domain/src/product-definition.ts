// A product on sale. The global database is the truth for its price and stock; its Redis state (`price`,
// `available`) is what orders reserve against, ahead of Postgres by the orders still in the queue.
import type { Static } from "typebox";
import type { productResponseSchema } from "./schemas/product-schemas.ts";

/** The most units one request may put on sale (a create's stock, a change's stockAdded). */
export const MAX_STOCK = 10_000_000;

/** A product as the global database holds it (timestamps in epoch ms). */
export interface ProductDefinition {
  id: string;
  name: string;
  /** Per unit, in minor units of the deployment's currency. */
  price: number;
  /** Units left after every persisted order. */
  stock: number;
  /** Every unit ever put on sale: the stock at creation plus each change's stockAdded. */
  received: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * What the product admin routes answer; `available`: units new orders can still reserve (from Redis), null
 * when Redis holds no state for the product.
 */
export type ProductView = Static<typeof productResponseSchema>;
