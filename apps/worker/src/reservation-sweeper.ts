// On a Redis Cluster, coupon issues and orders reserve units in the coupon's or products' slots before the user's
// slot records them (packages/reservations two-step-request.ts). An intake that dies between the two steps leaves
// units held for nothing; this sweep, run by every worker every SWEEP_EVERY_MS, gives them back
// (reservation-sweep.ts says why it is safe). On one Redis nothing is ever reserved apart, so it does not run.
import type { GlobalDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { sweepCouponReservations, sweepStockReservations } from "@floodgate/reservations";
import type { Kysely } from "kysely";
import type { Logger } from "pino";

const SWEEP_EVERY_MS = 10_000;
/** Coupons ended longer ago than this hold no reservation a sweep has not seen already. */
const ENDED_LONG_AGO_MS = 24 * 3600_000;

export class ReservationSweeper {
  readonly #redis: ScriptedRedis;
  readonly #keys: QueueKeys;
  readonly #global: Kysely<GlobalDatabase>;
  readonly #log: Logger;
  #lastSweep = 0;

  constructor(redis: ScriptedRedis, keys: QueueKeys, global: Kysely<GlobalDatabase>, log: Logger) {
    this.#redis = redis;
    this.#keys = keys;
    this.#global = global;
    this.#log = log;
  }

  async run(now: number): Promise<void> {
    if (!this.#redis.isCluster || now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    try {
      await this.sweep(now);
    } catch (error) {
      // Nothing is lost by a failed sweep: the reservations wait for the next one.
      this.#log.warn({ err: (error as Error).message }, "could not sweep the reservations");
    }
  }

  async sweep(now: number): Promise<void> {
    const coupons = await this.#global
      .selectFrom("coupons")
      .select("id")
      .where((eb) =>
        eb.or([eb("ends_at", "is", null), eb("ends_at", ">", new Date(now - ENDED_LONG_AGO_MS))]),
      )
      .execute();
    const products = await this.#global.selectFrom("products").select("id").execute();
    const [coupon, stock] = await Promise.all([
      sweepCouponReservations(
        this.#redis,
        this.#keys,
        coupons.map((row) => row.id),
        now,
      ),
      sweepStockReservations(
        this.#redis,
        this.#keys,
        products.map((row) => row.id),
        now,
      ),
    ]);
    if (coupon.released + stock.released > 0)
      this.#log.warn(
        { couponUnits: coupon.released, stockReservations: stock.released },
        "released units reserved by requests never recorded (an intake stopped between the two steps)",
      );
  }
}
