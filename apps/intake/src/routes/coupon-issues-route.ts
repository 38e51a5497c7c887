// First-come-first-served issue: the cached definition (no Postgres once warm), then ONE Redis call that
// decides and, when it accepts, reserves and enqueues. A refusal enqueues nothing.

import type { CouponIdParams, CouponIssueRequest, OperationIdParams } from "@floodgate/domain";
import {
  type CouponIssueMessage,
  couponIdParamsSchema,
  couponIssueAcceptedSchema,
  couponIssueRequestSchema,
  couponIssueResponseSchema,
  newOperationId,
  operationIdParamsSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { AdmissionRefusal } from "@floodgate/queue";
import { replicaWaitOf } from "@floodgate/redis-connections";
import { type IssueCouponOutcome, issueCoupon } from "@floodgate/reservations";
import { bucketForUser } from "@floodgate/shard-router";
import type { FastifyInstance } from "fastify";
import { actingUser, visibleTo } from "../auth/caller.ts";
import { readCouponIssue } from "../coupons/read-coupon-issue.ts";
import { type ErrorCode, ProblemError, type ProblemExtras } from "../errors/error-catalogue.ts";
import { sendProblem } from "../errors/problem-reply.ts";
import { conflictExtras, idempotencyKeyOf, REPLAYED_HEADER } from "../idempotency/idempotency-key.ts";
import { fingerprintUnderKey } from "../idempotency/request-fingerprint.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

// The state comes back when an operator runs reconcile, not in a moment as a store that blinked does: a shopper
// retrying every second (as the other 503s ask) would only add refusals during the drop.
const COUPON_STATE_RETRY_SECONDS = 30;

// Refusals are the common answer of a drop (98 % in the bench): they are sent directly rather than thrown,
// which spares each one an Error's stack trace and Fastify's error path.
function refusal(
  couponId: string,
  outcome: Exclude<IssueCouponOutcome, { result: "accepted" | "replayed" } | AdmissionRefusal>,
): [ErrorCode, ProblemExtras] {
  switch (outcome.result) {
    case "conflict":
      return ["idempotency_key_reused", conflictExtras(outcome.existingId)];
    case "already_issued":
      return [
        "already_issued",
        {
          field: "userId",
          detail: `this user already holds coupon ${couponId}: ${outcome.existingId}`,
          existingId: outcome.existingId,
        },
      ];
    case "sold_out":
      return ["sold_out", { field: "couponId", detail: `coupon ${couponId} is sold out` }];
    case "not_open":
      return [
        "not_open",
        {
          field: "couponId",
          detail: `coupon ${couponId} opens at ${new Date(outcome.opensAt).toISOString()}`,
        },
      ];
    case "closed":
      return [
        "not_open",
        {
          field: "couponId",
          detail: `coupon ${couponId} closed at ${new Date(outcome.closedAt).toISOString()}`,
        },
      ];
    case "unknown_coupon":
      return [
        "coupon_state_missing",
        {
          field: "couponId",
          detail: `coupon ${couponId} has no state in Redis`,
          retryAfterSeconds: COUPON_STATE_RETRY_SECONDS,
        },
      ];
  }
}

export async function couponIssuesRoute(app: FastifyInstance) {
  app.post<{ Params: CouponIdParams; Body: CouponIssueRequest }>(
    "/v1/coupons/:couponId/issues",
    {
      schema: {
        operationId: "issueCoupon",
        summary: "Claim a coupon for a user (first come, first served)",
        tags: ["Coupons"],
        documented: { location: "/v1/coupon-issues/{id}", admission: "coupon-issues", idempotent: true },
        params: couponIdParamsSchema,
        body: couponIssueRequestSchema,
        response: { 202: couponIssueAcceptedSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { couponId } = request.params;
      const userId = actingUser(request.caller, request.body.userId);
      const idempotencyKey = idempotencyKeyOf(request);
      const { metrics } = app;
      // Warm after this process's first request for the coupon: no Postgres query on the hot path.
      const coupon = app.couponDefinitions.cached(couponId) ?? (await app.couponDefinitions.find(couponId));
      if (!coupon) {
        metrics.couponIssueDecisions.inc({ outcome: "unknown_coupon" });
        throw new ProblemError("not_found", { field: "couponId", detail: `no coupon ${couponId}` });
      }
      const createdAt = Date.now(); // one reading: the id encodes it too
      const message: CouponIssueMessage = {
        v: 1,
        kind: "coupon_issue",
        id: newOperationId("coupon_issue", bucketForUser(userId), createdAt),
        userId,
        couponId,
        createdAt,
      };
      // A sale's room guards the issues of its coupons (the rest: the room guarding coupon issues, if any).
      const touched = { coupon: couponId };
      const outcome = await app.admission.control.admit(
        request,
        "coupon-issues",
        userId,
        (check) =>
          issueCoupon(
            app.redis,
            app.queueKeys,
            message,
            coupon.discount,
            check,
            {
              ...(idempotencyKey === undefined ? {} : { key: idempotencyKey }),
              fingerprint: fingerprintUnderKey(idempotencyKey, "coupon_issue", userId, couponId),
              ttlSeconds: app.config.idempotencyTtlSeconds,
            },
            replicaWaitOf(app.config),
          ),
        touched,
      );
      if (outcome.result === "rate_limited" || outcome.result === "waiting_room_required") {
        throw app.admission.control.refusalProblem("coupon-issues", outcome, touched);
      }
      if (outcome.result !== "accepted" && outcome.result !== "replayed") {
        const label =
          outcome.result === "closed"
            ? "not_open"
            : outcome.result === "unknown_coupon"
              ? "state_missing"
              : outcome.result;
        metrics.couponIssueDecisions.inc({ outcome: label });
        if (outcome.result === "unknown_coupon")
          request.log.error({ couponId }, "coupon state missing in Redis");
        const [code, extras] = refusal(couponId, outcome);
        // A retry of a refused key gets the first refusal again (the script recorded it), marked as Stripe does.
        if ("replayed" in outcome && outcome.replayed) extras.headers = REPLAYED_HEADER;
        return sendProblem(request, reply, code, extras);
      }
      metrics.couponIssueDecisions.inc({ outcome: outcome.result });
      metrics.countAccepted("coupon_issue", outcome.result);
      app.admission.control.accepted(reply, "coupon-issues", outcome.admission);
      if (outcome.result === "replayed") reply.headers(REPLAYED_HEADER);
      return reply
        .code(202)
        .header("location", `/v1/coupon-issues/${outcome.id}`)
        .send({ id: outcome.id, status: "pending" });
    },
  );

  app.get<{ Params: OperationIdParams }>(
    "/v1/coupon-issues/:id",
    {
      schema: {
        operationId: "getCouponIssue",
        summary: "A coupon issue and its status",
        tags: ["Coupons"],
        params: operationIdParamsSchema,
        response: { 200: couponIssueResponseSchema, ...problems },
      },
    },
    async (request) =>
      visibleTo(
        request.caller,
        await readCouponIssue(app, request.params.id),
        "id",
        `coupon issue ${request.params.id}`,
      ),
  );
}
