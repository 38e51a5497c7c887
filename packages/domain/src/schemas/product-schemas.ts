// Schemas of the product admin routes. Limits hold per request: several changes may take a product's stock
// past MAX_STOCK.
import Type, { type Static, type TUnsafe } from "typebox";
import { MAX_STOCK, MAX_UNITS_PER_USER } from "../product-definition.ts";
import { PRODUCT_ID_PATTERN } from "../product-id.ts";
import { PRINTABLE_TEXT_PATTERN } from "./coupon-schemas.ts";
import { amountSchema } from "./operation-schemas.ts";

/** Units one user may hold in orders awaiting payment, per product. */
const maxUnitsPerUserSchema = Type.Integer({ minimum: 1, maximum: MAX_UNITS_PER_USER });

export const productCreateRequestSchema = Type.Object(
  {
    // The rule of coupon names: printable text.
    name: Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_TEXT_PATTERN }),
    price: amountSchema,
    stock: Type.Integer({ minimum: 0, maximum: MAX_STOCK }),
    maxUnitsPerUser: Type.Optional(maxUnitsPerUserSchema),
  },
  { additionalProperties: false },
);
/** POST /v1/products. */
export type ProductCreateRequest = Static<typeof productCreateRequestSchema>;

/** Name and stock are not writable: stock only grows by stockAdded, so orders in flight stay reserved. */
export const productChangeRequestSchema = Type.Object(
  {
    price: Type.Optional(amountSchema),
    stockAdded: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STOCK })),
    maxUnitsPerUser: Type.Optional(maxUnitsPerUserSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
/** PATCH /v1/products/:productId: at least one field. */
export type ProductChangeRequest = Static<typeof productChangeRequestSchema>;

export const productIdParamsSchema = Type.Object({ productId: Type.String({ pattern: PRODUCT_ID_PATTERN }) });
export type ProductIdParams = Static<typeof productIdParamsSchema>;

export const productResponseSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: Type.Integer(),
  stock: Type.Integer(),
  received: Type.Integer(),
  available: Type.Unsafe<number | null>({ type: ["integer", "null"] }) as TUnsafe<number | null> & {
    type: ["integer", "null"];
  },
  /** The cap in force: the product's own, or the deployment's default. */
  maxUnitsPerUser: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** GET /v1/catalog/products/:productId, public: `available` is what new orders may still reserve. */
export const catalogProductResponseSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: Type.Integer(),
  currency: Type.String(),
  available: Type.Integer(),
});
