// Products <-> the global database's `products` rows, and the JSON the admin routes answer.
import type { GlobalDatabase } from "@floodgate/db";
import type {
  ProductChangeRequest,
  ProductCreateRequest,
  ProductDefinition,
  ProductView,
} from "@floodgate/domain";
import { type Kysely, type Selectable, sql } from "kysely";

type ProductRow = Selectable<GlobalDatabase["products"]>;

function productFromRow(row: ProductRow): ProductDefinition {
  return {
    id: row.id,
    name: row.name,
    price: row.price,
    stock: row.stock,
    received: row.received,
    maxUnitsPerUser: row.max_units_per_user,
    createdAt: row.created_at.getTime(),
    updatedAt: row.updated_at.getTime(),
  };
}

export async function findProduct(db: Kysely<GlobalDatabase>, id: string): Promise<ProductDefinition | null> {
  const row = await db.selectFrom("products").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? productFromRow(row) : null;
}

/** created_at and updated_at from the database's clock, the one every later change is stamped with. */
export async function insertProduct(
  db: Kysely<GlobalDatabase>,
  id: string,
  product: ProductCreateRequest,
): Promise<ProductDefinition> {
  const row = await db
    .insertInto("products")
    .values({
      id,
      name: product.name,
      price: product.price,
      stock: product.stock,
      received: product.stock,
      max_units_per_user: product.maxUnitsPerUser ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return productFromRow(row);
}

/**
 * One statement, so one transaction. Stock grows by an increment, never to a value: the workers' order
 * updates (stock = stock - n) running at the same time are kept. Null for an unknown product.
 */
export async function changeProduct(
  db: Kysely<GlobalDatabase>,
  id: string,
  change: ProductChangeRequest,
): Promise<ProductDefinition | null> {
  const { price, stockAdded, maxUnitsPerUser } = change;
  const row = await db
    .updateTable("products")
    .set((eb) => ({
      ...(price === undefined ? {} : { price }),
      ...(stockAdded === undefined
        ? {}
        : { stock: eb("stock", "+", stockAdded), received: eb("received", "+", stockAdded) }),
      ...(maxUnitsPerUser === undefined ? {} : { max_units_per_user: maxUnitsPerUser }),
      updated_at: sql<Date>`now()`,
    }))
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row ? productFromRow(row) : null;
}

/** `defaultMaxUnitsPerUser`: the deployment's cap, in force for a product without its own. */
export function productView(
  product: ProductDefinition,
  available: number | null,
  defaultMaxUnitsPerUser: number,
): ProductView {
  return {
    id: product.id,
    name: product.name,
    price: product.price,
    stock: product.stock,
    received: product.received,
    available,
    maxUnitsPerUser: product.maxUnitsPerUser ?? defaultMaxUnitsPerUser,
    createdAt: new Date(product.createdAt).toISOString(),
    updatedAt: new Date(product.updatedAt).toISOString(),
  };
}
