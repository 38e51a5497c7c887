// Shared by the POSTs that create a payment or a deposit (and the demo's): mint the id, say how to fingerprint the
// request for idempotency, and hand it to the one Lua call that stores it (with the client address's token beside it, same round trip).
// Nothing here touches Postgres.
import { type MoneyOperationKind, type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { enqueueOperation, idempotentTailOf } from "@floodgate/queue";
import { replicaWaitOf } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";
import { conflictExtras, idempotencyKeyOf, REPLAYED_HEADER } from "../idempotency/idempotency-key.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";

export interface OperationInput {
  kind: MoneyOperationKind;
  userId: string;
  amount: number;
  currency?: string;
  orderId?: string;
}

const LOCATION_BASE: Record<MoneyOperationKind, string> = {
  payment: "/v1/payments/",
  deposit: "/v1/deposits/",
};

const ROUTE_CLASS = { payment: "payments", deposit: "deposits" } as const;

/**
 * Not async: a route's handler returns this promise to Fastify, which answers a throw before it (bad input: the
 * problem, nothing sent) as it answers a rejection, and the hot path keeps one promise less (issue 30). It
 * resolves once the answer is sent.
 */
export function acceptOperation(
  request: FastifyRequest,
  reply: FastifyReply,
  input: OperationInput,
): Promise<void> {
  const { config, redis, queueKeys, metrics, admission } = request.server;
  const idempotencyKey = idempotencyKeyOf(request);
  if (input.currency !== undefined && input.currency !== config.currency) {
    throw new ProblemError("currency_mismatch", {
      field: "currency",
      detail: `this deployment takes ${config.currency}; amounts are integers in its minor unit`,
    });
  }
  // Hashed only if the script asks (enqueueOperation): the request's body and kind say what the hash would.
  const fingerprint =
    idempotencyKey === undefined
      ? ""
      : () =>
          requestFingerprint(
            input.kind,
            input.userId,
            String(input.amount),
            config.currency,
            input.orderId ?? "",
          );
  // One clock reading for both: the id encodes it, and GET answers createdAt from the message.
  const createdAt = Date.now();
  const message: MoneyOperationMessage = {
    v: 1,
    kind: input.kind,
    // With a key, the tail its retries compute again: they find this operation's status, its record.
    id: newOperationId(
      input.kind,
      bucketForUser(input.userId),
      createdAt,
      idempotencyKey === undefined ? undefined : idempotentTailOf(input.kind, input.userId, idempotencyKey),
    ),
    userId: input.userId,
    amount: input.amount,
    currency: config.currency,
    createdAt,
  };
  if (input.orderId !== undefined) message.orderId = input.orderId;
  const routeClass = ROUTE_CLASS[input.kind];

  return admission.control
    .admit(request, routeClass, input.userId, (check) =>
      enqueueOperation(redis, queueKeys, {
        message,
        fingerprint,
        idempotencyKey,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
        admission: check,
        replicaWait: replicaWaitOf(config),
      }),
    )
    .then((outcome) => {
      if (outcome.result === "rate_limited" || outcome.result === "waiting_room_required") {
        throw admission.control.refusalProblem(routeClass, outcome);
      }
      if (outcome.result === "conflict") {
        throw new ProblemError("idempotency_key_reused", conflictExtras(outcome.existingId));
      }
      metrics.countAccepted(input.kind, outcome.result);
      admission.control.accepted(reply, routeClass, outcome.admission);
      if (outcome.result === "replayed") reply.headers(REPLAYED_HEADER);
      reply
        .code(202)
        .header("Location", LOCATION_BASE[input.kind] + outcome.id)
        .send({ id: outcome.id, status: "pending" });
      // Resolved with nothing, not with the reply: a reply is a thenable, which the promise would adopt (one
      // job and one call more per request) before Fastify sees that it was sent.
    });
}
