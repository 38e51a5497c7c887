// What the shards hold for one shopper, read straight from every shard database (never through the intake):
// the tests count what the server really recorded, not what the page believes.
import { createKysely, type ShardDatabase } from "@floodgate/db";

export interface ShopperRecords {
  orders: { id: string; status: string; amount: number }[];
  payments: { id: string; status: string; amount: number; orderId: string | null }[];
  deposits: { id: string; status: string; amount: number }[];
}

export class ShardRecords {
  readonly #shards: ReturnType<typeof createKysely<ShardDatabase>>[];

  constructor(shardUrls: string[]) {
    this.#shards = shardUrls.map((url) =>
      createKysely<ShardDatabase>(url, { max: 1, applicationName: "demo-store-test" }),
    );
  }

  async forShopper(userId: string): Promise<ShopperRecords> {
    const perShard = await Promise.all(
      this.#shards.map(async (db) => ({
        orders: await db
          .selectFrom("orders")
          .select(["id", "status", "amount"])
          .where("user_id", "=", userId)
          .execute(),
        payments: await db
          .selectFrom("payments")
          .select(["id", "status", "amount", "order_id"])
          .where("user_id", "=", userId)
          .execute(),
        deposits: await db
          .selectFrom("deposits")
          .select(["id", "status", "amount"])
          .where("user_id", "=", userId)
          .execute(),
      })),
    );
    return {
      orders: perShard.flatMap((shard) => shard.orders),
      payments: perShard.flatMap((shard) =>
        shard.payments.map(({ order_id, ...payment }) => ({ ...payment, orderId: order_id })),
      ),
      deposits: perShard.flatMap((shard) => shard.deposits),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.#shards.map((db) => db.destroy()));
  }
}
