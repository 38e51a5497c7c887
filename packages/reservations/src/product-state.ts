// The Redis side of a product: `price`, `available` (units new orders may still reserve) and its own
// `maxUnitsPerUser` if it has one, read (and `available` decremented) by reserve-order-n.lua. Postgres holds the
// truth and is written first; this state runs ahead of its stock by the orders still in the queue, and
// reconcile rebuilds it from Postgres when it is missing.
import type { ProductChangeRequest, ProductDefinition } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import { changeProduct, type ScriptedRedis } from "@floodgate/redis-scripts";

/** The return codes of change-product-1.lua, the one place they are named. */
export const ChangeProductCode = { changed: 1, stateMissing: -1 } as const;

/**
 * Writes a new product's state, `available` = its stock. HSETNX per field: if reconcile wrote the state first
 * (and orders reserved against it since), that state stays. Returns what `available` holds afterwards.
 */
export async function writeProductState(
  redis: ScriptedRedis,
  keys: QueueKeys,
  product: Pick<ProductDefinition, "id" | "price" | "stock"> & { maxUnitsPerUser?: number | null },
): Promise<number> {
  const key = keys.productState(product.id);
  const multi = redis.multi().hsetnx(key, "price", product.price).hsetnx(key, "available", product.stock);
  // No field: the deployment's MAX_UNITS_PER_USER, as the intake passes it to each order.
  if (product.maxUnitsPerUser != null) multi.hsetnx(key, "maxUnitsPerUser", product.maxUnitsPerUser);
  const replies = await multi.hget(key, "available").exec();
  if (!replies) throw new Error(`MULTI for product ${product.id} was discarded`);
  for (const [error] of replies) if (error) throw error;
  return Number(replies.at(-1)![1]);
}

/**
 * Applies a committed change in one script call: the new price, `stockAdded` more units available, the new
 * per-user cap. Returns `available` afterwards, or null when the product has no state (then nothing is
 * written).
 */
export async function changeProductState(
  redis: ScriptedRedis,
  keys: QueueKeys,
  productId: string,
  change: ProductChangeRequest,
): Promise<number | null> {
  const { code, available } = await changeProduct.run(redis, {
    productStateKey: keys.productState(productId),
    price: change.price,
    stockAdded: change.stockAdded ?? 0,
    maxUnitsPerUser: change.maxUnitsPerUser,
  });
  return code === ChangeProductCode.stateMissing ? null : available;
}

/**
 * `available` of these products (null for one without state), in one round trip: one HGET per product (each its
 * own slot), all sent at once, which an auto-pipelined connection writes once per node.
 */
export async function readAvailable(
  redis: ScriptedRedis,
  keys: QueueKeys,
  productIds: string[],
): Promise<(number | null)[]> {
  const available = await Promise.all(productIds.map((id) => redis.hget(keys.productState(id), "available")));
  return available.map((value) => (value === null ? null : Number(value)));
}

export async function deleteProductState(redis: ScriptedRedis, keys: QueueKeys, productId: string) {
  await redis.del(keys.productState(productId));
}
