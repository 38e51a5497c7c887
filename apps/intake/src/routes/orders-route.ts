// POST /v1/orders, GET /v1/orders/:orderId, POST /v1/orders/:orderId/cancel. Placing and cancelling are one
// Redis script call each and no Postgres; reading goes to the order's shard (the id names it).

import type { OrderCreateRequest, OrderIdParams } from "@floodgate/domain";
import {
  newOperationId,
  orderAcceptedResponseSchema,
  orderCancelAcceptedResponseSchema,
  orderCreateRequestSchema,
  orderIdParamsSchema,
  orderResponseSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import { Gauge } from "@floodgate/metrics";
import type { AdmissionRefusal } from "@floodgate/queue";
import { replicaWaitOf } from "@floodgate/redis-connections";
import {
  ORDER_STATE_GRACE_SECONDS,
  type ReserveOrderOutcome,
  readAvailable,
  requestOrderEnd,
  reserveOrder,
} from "@floodgate/reservations";
import { bucketForUser } from "@floodgate/shard-router";
import type { FastifyInstance } from "fastify";
import { actingUser, adminNotAllowed, visibleTo } from "../auth/caller.ts";
import { type ErrorCode, ProblemError, type ProblemExtras } from "../errors/error-catalogue.ts";
import { conflictExtras, idempotencyKeyOf, REPLAYED_HEADER } from "../idempotency/idempotency-key.ts";
import { fingerprintUnderKey } from "../idempotency/request-fingerprint.ts";
import { orderConflictResponseSchema } from "../orders/order-problem-schema.ts";
import { readOrder } from "../orders/read-order.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

/**
 * How long a user's unpaid-units counter outlives the last order that raised it: a safety net for an order state
 * lost before its payment or end lowered it. Every order it counts has expired (or been paid) by then unless the
 * workers are this far behind.
 */
const UNPAID_UNITS_GRACE_SECONDS = 3600;

/** Products whose stock gauge this process reports (bounded: a flash sale has few hot products). */
const MAX_GAUGED_PRODUCTS = 1000;

export async function ordersRoute(app: FastifyInstance) {
  const ordered = new Set<string>();
  // Read from Redis at scrape time (on the stats connection), for the products this process took orders for.
  new Gauge({
    name: "floodgate_product_available",
    help: "Units new orders may still reserve, per product this intake has taken orders for (Redis, at scrape time)",
    labelNames: ["product"] as const,
    registers: [app.metrics.registry],
    async collect() {
      const ids = [...ordered];
      try {
        const available = await readAvailable(app.statsRedis, app.queueKeys, ids);
        this.reset();
        for (const [i, id] of ids.entries()) {
          const units = available[i];
          if (units !== null && units !== undefined) this.set({ product: id }, units);
        }
      } catch (error) {
        app.log.warn({ err: (error as Error).message }, "product stock gauges unavailable");
      }
    },
  });

  app.post<{ Body: OrderCreateRequest }>(
    "/v1/orders",
    {
      schema: {
        operationId: "createOrder",
        summary: "Order products: every line is reserved, or none",
        tags: ["Orders"],
        documented: { location: "/v1/orders/{id}", admission: "orders", idempotent: true },
        body: orderCreateRequestSchema,
        response: { 202: orderAcceptedResponseSchema, 409: orderConflictResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { config, metrics } = app;
      const { items, couponIssueId } = request.body;
      const userId = actingUser(request.caller, request.body.userId);
      const idempotencyKey = idempotencyKeyOf(request);
      const createdAt = Date.now(); // one reading: the id encodes it too
      // A sale's room guards the orders naming its products (the rest: the room guarding orders, if any).
      const touched = { products: items.map((item) => item.productId) };
      const outcome = await app.admission.control.admit(
        request,
        "orders",
        userId,
        (admission) =>
          reserveOrder(app.redis, app.queueKeys, {
            orderId: newOperationId("order", bucketForUser(userId), createdAt),
            userId,
            items,
            ...(couponIssueId === undefined ? {} : { couponIssueId }),
            currency: config.currency,
            createdAt,
            expiresAt: createdAt + config.orderTtlSeconds * 1000,
            fingerprint: fingerprintUnderKey(
              idempotencyKey,
              "order",
              userId,
              JSON.stringify(items),
              couponIssueId ?? "",
            ),
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
            idempotencyTtlSeconds: config.idempotencyTtlSeconds,
            orderStateTtlSeconds: config.orderTtlSeconds + ORDER_STATE_GRACE_SECONDS,
            defaultMaxUnitsPerUser: config.maxUnitsPerUser,
            unpaidUnitsTtlSeconds: config.orderTtlSeconds + UNPAID_UNITS_GRACE_SECONDS,
            admission,
            replicaWait: replicaWaitOf(config),
          }),
        touched,
      );
      if (outcome.result === "rate_limited" || outcome.result === "waiting_room_required") {
        throw app.admission.control.refusalProblem("orders", outcome, touched);
      }
      metrics.orderDecisions.inc({ outcome: outcome.result });
      if (outcome.result !== "accepted" && outcome.result !== "replayed") {
        const [code, extras] = refusal(outcome);
        // A retry of a refused key gets the first refusal again (the script recorded it), marked as Stripe does.
        if ("replayed" in outcome && outcome.replayed) extras.headers = REPLAYED_HEADER;
        throw new ProblemError(code, extras);
      }
      metrics.countAccepted("order", outcome.result);
      app.admission.control.accepted(reply, "orders", outcome.admission);
      // Only accepted orders name real products: a stream of unknown ids cannot fill the gauge's slots.
      for (const { productId } of items) if (ordered.size < MAX_GAUGED_PRODUCTS) ordered.add(productId);
      if (outcome.result === "replayed") reply.headers(REPLAYED_HEADER);
      return reply
        .code(202)
        .header("location", `/v1/orders/${outcome.id}`)
        .send({ id: outcome.id, status: "pending", amount: outcome.amount });
    },
  );

  app.get<{ Params: OrderIdParams }>(
    "/v1/orders/:orderId",
    {
      schema: {
        operationId: "getOrder",
        summary: "An order and its status",
        tags: ["Orders"],
        params: orderIdParamsSchema,
        response: { 200: orderResponseSchema, ...problems },
      },
    },
    async (request) =>
      visibleTo(
        request.caller,
        await readOrder(app, request.params.orderId),
        "orderId",
        `order ${request.params.orderId}`,
      ),
  );

  app.post<{ Params: OrderIdParams }>(
    "/v1/orders/:orderId/cancel",
    {
      schema: {
        operationId: "cancelOrder",
        summary: "Cancel an order that awaits payment",
        tags: ["Orders"],
        documented: { location: "/v1/orders/{id}" },
        params: orderIdParamsSchema,
        response: { 202: orderCancelAcceptedResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { orderId } = request.params;
      const { caller } = request;
      if (caller.kind === "admin") throw adminNotAllowed();
      const outcome = await requestOrderEnd(
        app.redis,
        app.queueKeys,
        orderId,
        "cancelled",
        Date.now(),
        caller.kind === "customer" ? caller.userId : undefined,
      );
      app.metrics.orderEndRequests.inc({ reason: "cancelled", outcome: outcome.result });
      if (outcome.result === "unknown_order") {
        throw new ProblemError("not_found", { field: "orderId", detail: `no order ${orderId}` });
      }
      if (outcome.result === "already_ended") {
        throw new ProblemError("order_not_cancellable", {
          field: "orderId",
          detail: `order ${orderId} already ended without a sale`,
        });
      }
      // The worker ends the order only if it still awaits payment; GET shows what it decided.
      return reply
        .code(202)
        .header("Location", `/v1/orders/${orderId}`)
        .send({ id: orderId, status: "cancelling" });
    },
  );
}

function refusal(
  outcome: Exclude<ReserveOrderOutcome, { result: "accepted" | "replayed" } | AdmissionRefusal>,
): [ErrorCode, ProblemExtras] {
  switch (outcome.result) {
    case "conflict":
      return ["idempotency_key_reused", conflictExtras(outcome.existingId)];
    case "unknown_product":
      return [
        "not_found",
        {
          field: `items.${outcome.line - 1}.productId`,
          detail: `no product ${outcome.productId} (line ${outcome.line})`,
        },
      ];
    case "out_of_stock":
      return [
        "out_of_stock",
        {
          field: "items",
          detail: outcome.lines
            .map(
              (l) => `line ${l.line}: ${l.requested} of ${l.productId} requested, ${l.available} available`,
            )
            .join("; "),
          lines: outcome.lines,
        },
      ];
    case "unit_limit_exceeded":
      return [
        "unit_limit_exceeded",
        {
          field: "items",
          detail: outcome.lines
            .map(
              (l) =>
                `line ${l.line}: ${l.requested} of ${l.productId} requested, ${l.held} held unpaid, limit ${l.limit} per user`,
            )
            .join("; "),
          lines: outcome.lines,
        },
      ];
    case "unknown_coupon":
      return ["not_found", { field: "couponIssueId", detail: "no such coupon issue" }];
    case "coupon_not_yours":
      return ["coupon_not_yours", { field: "couponIssueId" }];
    case "coupon_used":
      return ["coupon_already_used", { field: "couponIssueId", existingId: outcome.orderId }];
    case "amount_too_large":
      return [
        "amount_too_large",
        { field: "items", detail: `the order's amount ${outcome.amount} is above the largest allowed` },
      ];
  }
}
