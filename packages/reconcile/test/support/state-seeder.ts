// Products, coupons and coupon issues written straight into Postgres and Redis, as the system leaves them at
// rest, without the intake or a worker: the hot-path scripts do not run on a Redis Cluster yet, and reconcile
// compares only the stores. The Redis side goes through the queue package's own state writers and QueueKeys.
import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import { newCouponId, newOperationId, newProductId } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { writeCouponState, writeProductState } from "@floodgate/reservations";
import { bucketForUser } from "@floodgate/shard-router";
import type { Kysely } from "kysely";

export class StateSeeder {
  readonly #redis: ScriptedRedis;
  readonly #keys: QueueKeys;
  readonly #global: Kysely<GlobalDatabase>;
  readonly #shards: Kysely<ShardDatabase>[];

  constructor(
    redis: ScriptedRedis,
    keys: QueueKeys,
    global: Kysely<GlobalDatabase>,
    shards: Kysely<ShardDatabase>[],
  ) {
    this.#redis = redis;
    this.#keys = keys;
    this.#global = global;
    this.#shards = shards;
  }

  /** A product with nothing sold: Postgres' stock and Redis' available agree. */
  async product(stock: number, price = 1_000, id = newProductId()): Promise<string> {
    await this.#global
      .insertInto("products")
      .values({ id, name: `product of ${stock}`, price, stock, received: stock, max_units_per_user: null })
      .execute();
    await writeProductState(this.#redis, this.#keys, { id, price, stock, maxUnitsPerUser: null });
    return id;
  }

  /** A coupon (10% off) and its state. */
  async coupon(quantity: number): Promise<string> {
    const id = newCouponId();
    await writeCouponState(this.#redis, this.#keys, { id, quantity, startsAt: null, endsAt: null });
    await this.#global
      .insertInto("coupons")
      .values({ id, name: `drop of ${quantity}`, quantity, discount_type: "percent", discount_value: 10 })
      .execute();
    return id;
  }

  /**
   * An issue as a worker leaves it: the row on a shard; in Redis the holder, the issued count and the
   * redemption record in the holder's partition. Returns the issue id.
   */
  async issue(couponId: string, userId: string): Promise<string> {
    const id = newOperationId("coupon_issue", bucketForUser(userId));
    // Any shard: reconcile reads a coupon's issues from all of them.
    await this.#shards[0]!.insertInto("issued_coupons")
      .values({
        id,
        coupon_id: couponId,
        user_id: userId,
        status: "issued",
        used_at: null,
        order_id: null,
        created_at: new Date(),
      })
      .execute();
    await this.#redis.hset(this.#keys.couponHolders(couponId), userId, id);
    await this.#redis.hincrby(this.#keys.couponState(couponId), "issued", 1);
    await this.#redis.hset(this.recordKey(id, userId), {
      couponId,
      userId,
      discountType: "percent",
      discountValue: "10",
    });
    return id;
  }

  recordKey(issueId: string, userId: string): string {
    return this.#keys.couponIssue(this.#keys.partitionForUser(userId), issueId);
  }
}
