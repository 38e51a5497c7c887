// POST /v1/orders/:orderId/provider-payments' acceptance: like a refund's (accept-refund.ts), one Lua call
// and no Postgres. Whether the order still awaits payment, costs this amount, or was paid by this charge
// already is the order's shard's to decide, in the transaction that marks it paid: the edge cannot know it
// without a query, and would be wrong by the time it ran.
import {
  newOperationId,
  type ProviderPaymentMessage,
  type ProviderPaymentRequest,
  parseOperationId,
} from "@floodgate/domain";
import { enqueueOperation, idempotentTailOf, unlimitedAdmissionIn } from "@floodgate/queue";
import { replicaWaitOf } from "@floodgate/redis-connections";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";
import { conflictExtras, REPLAYED_HEADER, requiredIdempotencyKey } from "../idempotency/idempotency-key.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";

/** Required: the shop's webhook handler for its provider is retried, and each retry must find the first. */
export const providerPaymentIdempotencyKey = (request: FastifyRequest): string =>
  requiredIdempotencyKey(request, "a provider payment", "a retried request is the same payment");

export async function acceptProviderPayment(
  request: FastifyRequest,
  reply: FastifyReply,
  orderId: string,
  body: ProviderPaymentRequest,
  idempotencyKey: string,
) {
  const { config, redis, queueKeys, metrics } = request.server;
  // The params' pattern admits only order ids, so this parses.
  const order = parseOperationId(orderId)!;
  const createdAt = Date.now();
  const message: ProviderPaymentMessage = {
    v: 1,
    kind: "provider_payment",
    // The order's bucket: applied on the order's shard, in its partition (ordered with its expiry and cancel).
    // The key's tail: a retry names this payment's status hash, which is the key's record.
    id: newOperationId(
      "provider_payment",
      order.bucket,
      createdAt,
      idempotentTailOf("provider_payment", orderId, idempotencyKey),
    ),
    orderId,
    provider: body.provider,
    reference: body.reference,
    amount: body.amount,
    currency: config.currency,
    createdAt,
  };
  const fingerprint = requestFingerprint(
    "provider_payment",
    orderId,
    body.provider,
    body.reference,
    String(body.amount),
    config.currency,
  );
  const partition = queueKeys.partitionForBucket(order.bucket);
  // Server keys only, and no shopper's rate limit or waiting room applies: the money is taken already.
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
    throw new ProblemError("internal_error", {
      detail: `provider payment admission refused: ${outcome.result}`,
    });
  }
  metrics.countAccepted("provider_payment", outcome.result);
  if (outcome.result === "replayed") reply.headers(REPLAYED_HEADER);
  return reply
    .code(202)
    .header("location", `/v1/provider-payments/${outcome.id}`)
    .send({ id: outcome.id, status: "pending" });
}
