// Products, coupons, orders and coupon issues the way the intake makes them, without its HTTP layer: the
// definition rows and Redis state the admin routes write, and the single script call of each hot-path route.
import type { Config } from "@floodgate/config";
import type { GlobalDatabase } from "@floodgate/db";
import {
  type CouponIssueMessage,
  newCouponId,
  newOperationId,
  newProductId,
  type OrderEndReason,
} from "@floodgate/domain";
import { type QueueKeys, unlimitedAdmission } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import {
  issueCoupon,
  requestOrderEnd,
  reserveOrder,
  writeCouponState,
  writeProductState,
} from "@floodgate/reservations";
import { bucketForUser } from "@floodgate/shard-router";
import type { Kysely } from "kysely";

export class CheckoutClient {
  readonly #config: Config;
  readonly #redis: ScriptedRedis;
  readonly #keys: QueueKeys;
  readonly #global: Kysely<GlobalDatabase>;

  constructor(config: Config, redis: ScriptedRedis, keys: QueueKeys, global: Kysely<GlobalDatabase>) {
    this.#config = config;
    this.#redis = redis;
    this.#keys = keys;
    this.#global = global;
  }

  /** Postgres first, then Redis, as POST /v1/products does. */
  async createProduct(stock: number, price = 1_000, maxUnitsPerUser: number | null = null): Promise<string> {
    const id = newProductId();
    await this.#global
      .insertInto("products")
      .values({
        id,
        name: `product of ${stock}`,
        price,
        stock,
        received: stock,
        max_units_per_user: maxUnitsPerUser,
      })
      .execute();
    await writeProductState(this.#redis, this.#keys, { id, price, stock, maxUnitsPerUser });
    return id;
  }

  /** Redis first, then the row, as POST /v1/coupons does. A 10% discount. */
  async createCoupon(quantity: number): Promise<string> {
    const id = newCouponId();
    await writeCouponState(this.#redis, this.#keys, { id, quantity, startsAt: null, endsAt: null });
    await this.#global
      .insertInto("coupons")
      .values({ id, name: `drop of ${quantity}`, quantity, discount_type: "percent", discount_value: 10 })
      .execute();
    return id;
  }

  async issue(couponId: string, userId: string): Promise<string> {
    const message: CouponIssueMessage = {
      v: 1,
      kind: "coupon_issue",
      id: newOperationId("coupon_issue", bucketForUser(userId)),
      userId,
      couponId,
      createdAt: Date.now(),
    };
    const outcome = await issueCoupon(
      this.#redis,
      this.#keys,
      message,
      { type: "percent", value: 10 },
      unlimitedAdmission(this.#keys, userId),
    );
    if (outcome.result !== "accepted") throw new Error(`issue refused: ${JSON.stringify(outcome)}`);
    return outcome.id;
  }

  async placeOrder(
    userId: string,
    items: { productId: string; quantity: number }[],
    couponIssueId?: string,
  ): Promise<string> {
    const createdAt = Date.now();
    const orderId = newOperationId("order", bucketForUser(userId), createdAt);
    const outcome = await reserveOrder(this.#redis, this.#keys, {
      orderId,
      userId,
      items,
      ...(couponIssueId ? { couponIssueId } : {}),
      currency: this.#config.currency,
      createdAt,
      expiresAt: createdAt + this.#config.orderTtlSeconds * 1000,
      fingerprint: orderId,
      idempotencyTtlSeconds: this.#config.idempotencyTtlSeconds,
      orderStateTtlSeconds: this.#config.orderTtlSeconds * 2,
      defaultMaxUnitsPerUser: this.#config.maxUnitsPerUser,
      unpaidUnitsTtlSeconds: this.#config.orderTtlSeconds * 2,
      admission: unlimitedAdmission(this.#keys, userId),
    });
    if (outcome.result !== "accepted") throw new Error(`order refused: ${JSON.stringify(outcome)}`);
    return orderId;
  }

  async endOrder(orderId: string, reason: OrderEndReason = "cancelled"): Promise<void> {
    const outcome = await requestOrderEnd(this.#redis, this.#keys, orderId, reason);
    if (outcome.result !== "requested") throw new Error(`end refused: ${JSON.stringify(outcome)}`);
  }
}
