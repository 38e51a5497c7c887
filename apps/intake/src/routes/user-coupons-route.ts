import type { UserIdParams } from "@floodgate/domain";
import { problemResponseSchema, userCouponsResponseSchema, userIdParamsSchema } from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { mayRead } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };
// A user holds at most one of each coupon; the cap only bounds an answer nobody should need to page.
const MAX_LISTED = 1000;

export async function userCouponsRoute(app: FastifyInstance) {
  // From the user's shard: coupons the workers recorded, newest first. An issue still pending (202 given,
  // not yet applied) shows up here once a worker commits it; its status is at /v1/coupon-issues/:id.
  app.get<{ Params: UserIdParams }>(
    "/v1/users/:userId/coupons",
    {
      schema: {
        operationId: "listUserCoupons",
        summary: "The coupons a user holds, newest first",
        tags: ["Coupons"],
        params: userIdParamsSchema,
        response: { 200: userCouponsResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { userId } = request.params;
      if (!mayRead(request.caller, userId)) {
        throw new ProblemError("not_found", { field: "userId", detail: `no coupons of ${userId}` });
      }
      const rows = await app.shards
        .forUser(userId)
        .selectFrom("issued_coupons")
        .select(["id", "coupon_id", "status", "used_at", "created_at", "completed_at"])
        .where("user_id", "=", userId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(MAX_LISTED)
        .execute();
      return {
        userId,
        coupons: rows.map((row) => ({
          id: row.id,
          couponId: row.coupon_id,
          status: row.status,
          usedAt: row.used_at?.toISOString() ?? null,
          createdAt: row.created_at.toISOString(),
          issuedAt: row.completed_at.toISOString(),
        })),
      };
    },
  );
}
