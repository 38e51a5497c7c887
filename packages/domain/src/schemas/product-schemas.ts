// JSON Schemas of the product admin routes. Limits hold per request: several changes may take a product's
// stock past MAX_STOCK.
import { MAX_STOCK, MAX_UNITS_PER_USER } from "../product-definition.ts";
import { PRODUCT_ID_PATTERN } from "../product-id.ts";
import { MAX_AMOUNT } from "./operation-schemas.ts";

const price = { type: "integer", minimum: 1, maximum: MAX_AMOUNT } as const;
const maxUnitsPerUser = { type: "integer", minimum: 1, maximum: MAX_UNITS_PER_USER } as const;

export const productCreateRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "price", "stock"],
  properties: {
    // Printable text, the rule of coupon names: no control characters (they end up in logs and admin screens).
    name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[^\\u0000-\\u001F\\u007F]+$" },
    price,
    stock: { type: "integer", minimum: 0, maximum: MAX_STOCK },
    maxUnitsPerUser,
  },
} as const;

/** Name and stock are not writable: stock only grows by stockAdded, so orders in flight stay reserved. */
export const productChangeRequestSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    price,
    stockAdded: { type: "integer", minimum: 1, maximum: MAX_STOCK },
    maxUnitsPerUser,
  },
} as const;

export const productIdParamsSchema = {
  type: "object",
  required: ["productId"],
  properties: { productId: { type: "string", pattern: PRODUCT_ID_PATTERN } },
} as const;

export const productResponseSchema = {
  type: "object",
  required: [
    "id",
    "name",
    "price",
    "stock",
    "received",
    "available",
    "maxUnitsPerUser",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    price: { type: "integer" },
    stock: { type: "integer" },
    received: { type: "integer" },
    available: { type: ["integer", "null"] },
    maxUnitsPerUser: { type: "integer" },
    createdAt: { type: "string" },
    updatedAt: { type: "string" },
  },
} as const;
