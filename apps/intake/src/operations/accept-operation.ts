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
 * Answers the request itself, and returns nothing for the route's handler to return: Fastify then waits on no
 * promise of ours (issue 30: handing it one cost a promise, two callbacks and a job per request). Bad input it
 * can tell at once is thrown, which Fastify answers as a handler's throw (the problem, nothing stored); a
 * refusal or failure after that is sent from here, as Fastify sends a rejected handler's error.
 */
export function acceptOperation(request: FastifyRequest, reply: FastifyReply, input: OperationInput): void {
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

  admission.control
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
    .then(
      (outcome) => {
        try {
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
            // Lowercase, as Fastify stores it (reply.header lowercases every name it is given).
            .header("location", LOCATION_BASE[input.kind] + outcome.id)
            .send({ id: outcome.id, status: "pending" });
        } catch (error) {
          sendError(reply, error);
        }
      },
      (error: unknown) => sendError(reply, error),
    );
}

/**
 * What Fastify does with a handler's rejection: its error handler answers (problem-plugin.ts), unless an
 * answer already left, which only a log line can tell then. Never throws: nothing would catch it.
 */
function sendError(reply: FastifyReply, error: unknown): void {
  try {
    if (!reply.sent) {
      reply.send(error instanceof Error ? error : new Error(String(error)));
      return;
    }
  } catch (failure) {
    error = failure;
  }
  reply.log.error(
    { err: error },
    reply.sent
      ? "accepting an operation failed after its answer was sent"
      : "accepting an operation failed, and its problem could not be sent",
  );
}
