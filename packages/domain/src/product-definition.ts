// A product on sale. The global database is the truth for its price and stock; its Redis state (`price`,
// `available`) is what orders reserve against, ahead of Postgres by the orders still in the queue.

/** The most units one request may put on sale (a create's stock, a change's stockAdded). */
export const MAX_STOCK = 10_000_000;

/** The largest per-user cap a product (or MAX_UNITS_PER_USER) may set. */
export const MAX_UNITS_PER_USER = 1_000_000;

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
  /**
   * Units one user may hold in orders awaiting payment; null: the deployment's default (MAX_UNITS_PER_USER).
   */
  maxUnitsPerUser: number | null;
  createdAt: number;
  updatedAt: number;
}

/** POST /v1/products. */
export type ProductCreateRequest = Pick<ProductDefinition, "name" | "price" | "stock"> & {
  maxUnitsPerUser?: number;
};

/** PATCH /v1/products/:productId: at least one field. */
export interface ProductChangeRequest {
  price?: number;
  stockAdded?: number;
  maxUnitsPerUser?: number;
}

/** What the product admin routes answer. */
export interface ProductView {
  id: string;
  name: string;
  price: number;
  stock: number;
  received: number;
  /** Units new orders can still reserve (from Redis); null when Redis holds no state for the product. */
  available: number | null;
  /** The cap in force: the product's own, or the deployment's default. */
  maxUnitsPerUser: number;
  createdAt: string;
  updatedAt: string;
}
