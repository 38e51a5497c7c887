// POST /v1/refunds' acceptance: like a payment's (accept-operation.ts), one Lua call and no Postgres. What the
// payment allows (its status, what is left to refund) is the shard's to decide, in the transaction that
// applies the refund: the edge cannot know it without a query, and would be wrong by the time it ran.
import { newOperationId, parseOperationId, type RefundMessage, type RefundRequest } from "@floodgate/domain";
import { enqueueOperation, idempotentTailOf, unlimitedAdmissionIn } from "@floodgate/queue";
import { replicaWaitOf } from "@floodgate/redis-connections";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";
import { conflictExtras, REPLAYED_HEADER, requiredIdempotencyKey } from "../idempotency/idempotency-key.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { legacyRefundRecord } from "./legacy-refund-key.ts";

/** Required: a refund repeated by a retry would give the money back twice (until the payment runs out). */
export const refundIdempotencyKey = (request: FastifyRequest): string =>
  requiredIdempotencyKey(request, "a refund", "a retried request is not a second refund");

export async function acceptRefund(
  request: FastifyRequest,
  reply: FastifyReply,
  body: RefundRequest,
  idempotencyKey: string,
) {
  const { config, redis, queueKeys } = request.server;
  if (body.paymentId.startsWith("ppy_")) {
    throw new ProblemError("provider_payment_not_refundable", {
      field: "paymentId",
      detail: `${body.paymentId} was paid at the shop's payment provider: refund it there`,
    });
  }
  if (body.currency !== undefined && body.currency !== config.currency) {
    throw new ProblemError("currency_mismatch", {
      field: "currency",
      detail: `this deployment takes ${config.currency}; amounts are integers in its minor unit`,
    });
  }
  // The schema's pattern admits only payment ids (a provider payment's was refused above), so this parses.
  const payment = parseOperationId(body.paymentId)!;
  const createdAt = Date.now();
  const message: RefundMessage = {
    v: 1,
    kind: "refund",
    // The payment's bucket: the refund is applied on the payment's shard, in the payment's partition.
    // The key's tail: a retry names this refund's status hash, which is the key's record.
    id: newOperationId(
      "refund",
      payment.bucket,
      createdAt,
      idempotentTailOf("refund", body.paymentId, idempotencyKey),
    ),
    paymentId: body.paymentId,
    currency: config.currency,
    createdAt,
  };
  if (body.amount !== undefined) message.amount = body.amount;
  if (body.reason !== undefined) message.reason = body.reason;
  if (body.restock !== undefined) message.restock = body.restock;
  const fingerprint = requestFingerprint(
    "refund",
    body.paymentId,
    String(body.amount ?? ""),
    config.currency,
    body.reason ?? "",
    String(body.restock ?? false),
  );
  const legacy = await legacyRefundRecord(request.server, body.paymentId, idempotencyKey, fingerprint);
  if (legacy !== null && !legacy.sameRequest) {
    throw new ProblemError("idempotency_key_reused", conflictExtras(legacy.id));
  }
  if (legacy !== null) return answer(request, reply, "replayed", legacy.id);
  const partition = queueKeys.partitionForBucket(payment.bucket);
  // Server keys only, and no shopper's rate limit or waiting room applies to the shop's own back office.
  const outcome = await enqueueOperation(redis, queueKeys, {
    message,
    fingerprint,
    idempotencyKey,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    admission: unlimitedAdmissionIn(queueKeys, partition),
    replicaWait: replicaWaitOf(config),
  });
  if (outcome.result === "conflict") {
    throw new ProblemError("idempotency_key_reused", conflictExtras(outcome.existingId));
  }
  if (outcome.result !== "accepted" && outcome.result !== "replayed") {
    throw new ProblemError("internal_error", { detail: `refund admission refused: ${outcome.result}` });
  }
  return answer(request, reply, outcome.result, outcome.id);
}

function answer(request: FastifyRequest, reply: FastifyReply, result: "accepted" | "replayed", id: string) {
  request.server.metrics.countAccepted("refund", result);
  if (result === "replayed") reply.headers(REPLAYED_HEADER);
  return reply.code(202).header("location", `/v1/refunds/${id}`).send({ id, status: "pending" });
}
