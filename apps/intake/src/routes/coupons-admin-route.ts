// Admin: define a coupon and look at it. Redis state is written before the definition row: a row without
// its Redis state would answer coupon_state_missing, while state without a row is invisible (unknown id).
import type { CouponCreateRequest, CouponIdParams } from "@floodgate/domain";
import {
  type CouponDefinition,
  couponCreateRequestSchema,
  couponIdParamsSchema,
  couponResponseSchema,
  couponWithCountsResponseSchema,
  newCouponId,
  problemResponseSchema,
} from "@floodgate/domain";
import { deleteCouponState, readIssuedCounts, writeCouponState } from "@floodgate/reservations";
import type { FastifyInstance } from "fastify";
import { adminRoutes } from "../auth/admin-auth.ts";
import { checkCouponInput } from "../coupons/coupon-input.ts";
import { couponJson, insertCouponDefinition } from "../coupons/coupon-rows.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function couponsAdminRoute(app: FastifyInstance) {
  adminRoutes(app);

  app.post<{ Body: CouponCreateRequest }>(
    "/v1/coupons",
    {
      schema: {
        operationId: "createCoupon",
        summary: "Define a coupon",
        tags: ["Coupons"],
        documented: { location: "/v1/coupons/{couponId}" },
        body: couponCreateRequestSchema,
        response: { 201: couponResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const input = checkCouponInput(request.body);
      const now = Date.now();
      const coupon: CouponDefinition = { id: newCouponId(now), ...input, createdAt: now };
      if (!(await writeCouponState(app.redis, app.queueKeys, coupon))) {
        throw new Error(`coupon ${coupon.id} already had Redis state`); // a fresh id: never expected
      }
      try {
        await insertCouponDefinition(app.globalDb, coupon);
      } catch (error) {
        await deleteCouponState(app.redis, app.queueKeys, coupon.id).catch(() => {});
        throw error;
      }
      app.couponDefinitions.remember(coupon);
      request.log.info({ coupon: coupon.id, quantity: coupon.quantity }, "coupon created");
      return reply.code(201).header("Location", `/v1/coupons/${coupon.id}`).send(couponJson(coupon));
    },
  );

  app.get<{ Params: CouponIdParams }>(
    "/v1/coupons/:couponId",
    {
      schema: {
        operationId: "getCoupon",
        summary: "A coupon's definition and counts",
        tags: ["Coupons"],
        params: couponIdParamsSchema,
        response: { 200: couponWithCountsResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { couponId } = request.params;
      const coupon = await app.couponDefinitions.find(couponId);
      if (!coupon)
        throw new ProblemError("not_found", { field: "couponId", detail: `no coupon ${couponId}` });
      const [issued = 0] = await readIssuedCounts(app.redis, app.queueKeys, [couponId]);
      return { ...couponJson(coupon), issued, remaining: Math.max(0, coupon.quantity - issued) };
    },
  );
}
