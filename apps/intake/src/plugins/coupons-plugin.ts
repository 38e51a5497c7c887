import { Gauge } from "@floodgate/metrics";
import { readIssuedCounts } from "@floodgate/reservations";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { CouponDefinitionCache } from "../coupons/coupon-definition-cache.ts";
import { loadCouponDefinition } from "../coupons/coupon-rows.ts";

declare module "fastify" {
  interface FastifyInstance {
    couponDefinitions: CouponDefinitionCache;
  }
}

/** Needs the metrics, Redis and global database plugins registered first. */
export const couponsPlugin = fp(async (app: FastifyInstance) => {
  const cache = new CouponDefinitionCache((id) => {
    app.metrics.couponDefinitionLoads.inc();
    return loadCouponDefinition(app.globalDb, id);
  });
  app.decorate("couponDefinitions", cache);

  // Read from Redis at scrape time (on the stats connection), for the coupons this process has seen.
  new Gauge({
    name: "floodgate_coupon_remaining",
    help: "Coupons left to issue, per coupon this intake has served (read from Redis at scrape time)",
    labelNames: ["coupon"] as const,
    registers: [app.metrics.registry],
    async collect() {
      const coupons = cache.all();
      try {
        const issued = await readIssuedCounts(
          app.statsRedis,
          app.queueKeys,
          coupons.map((coupon) => coupon.id),
        );
        this.reset();
        for (const [i, coupon] of coupons.entries()) {
          this.set({ coupon: coupon.id }, Math.max(0, coupon.quantity - (issued[i] ?? 0)));
        }
      } catch (error) {
        app.log.warn({ err: (error as Error).message }, "coupon gauges unavailable");
      }
    },
  });
});
