// Turns every error into RFC 9457 problem+json naming the field, including Fastify's own parser and schema
// errors, so a client never has to parse two error shapes.

import { ReplicaShortfallError } from "@floodgate/redis-connections";
import { CommitTooLateError } from "@floodgate/reservations";
import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ReplyError } from "ioredis";
import { ProblemError } from "../errors/error-catalogue.ts";
import { sendProblem } from "../errors/problem-reply.ts";
import { unavailableStore } from "../errors/store-errors.ts";

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: { missingProperty?: string; additionalProperty?: string };
}

function fieldErrors(validation: AjvError[], context: string | undefined) {
  return validation.map((error) => {
    const path = error.instancePath.replace(/^\//, "").replaceAll("/", ".");
    const property = error.params.missingProperty ?? error.params.additionalProperty;
    // A nested property is named by its full path (items.0.price), a top-level one by itself.
    const name = property === undefined ? path : path ? `${path}.${property}` : property;
    const field = name || (context ?? "body");
    const detail =
      error.keyword === "additionalProperties"
        ? `unknown field "${field}"`
        : error.keyword === "required"
          ? `"${field}" is required`
          : `"${field}" ${error.message ?? "is invalid"}`;
    return { field, pointer: `#/${field.replaceAll(".", "/")}`, detail };
  });
}

export const problemPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ProblemError) return sendProblem(request, reply, error.code, error.extras);
    if (error.validation) {
      const errors = fieldErrors(error.validation as AjvError[], error.validationContext);
      return sendProblem(request, reply, "validation_error", {
        field: errors[0]?.field,
        detail: errors.map((e) => e.detail).join("; "),
        errors,
      });
    }
    switch (error.code) {
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return sendProblem(request, reply, "unsupported_media_type", { field: "Content-Type" });
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return sendProblem(request, reply, "body_too_large", { field: "body" });
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
      case "FST_ERR_CTP_INVALID_JSON_BODY":
        return sendProblem(request, reply, "malformed_json", { field: "body", detail: error.message });
    }
    if (error.statusCode === 400 && error instanceof SyntaxError) {
      return sendProblem(request, reply, "malformed_json", { field: "body", detail: error.message });
    }
    if (error instanceof ReplicaShortfallError) {
      request.server.metrics.replicaWaitShortfalls.inc();
      request.log.warn({ err: error.message }, "replicas did not confirm an accepted request; answering 503");
      return sendProblem(request, reply, "service_unavailable", {
        detail: `The request was stored, but ${error.acknowledged} of the ${error.wanted} Redis replicas asked for confirmed it in time, so it may or may not survive a failover. ${RETRY_ANSWERS_OUTCOME}`,
        retryAfterSeconds: 1,
      });
    }
    if (error instanceof CommitTooLateError) {
      request.log.warn({ err: error.message }, "a two-step request's commit came too late; answering 503");
      return sendProblem(request, reply, "service_unavailable", {
        detail:
          "The request was not stored: this server stalled between its two steps on the Redis Cluster. Retry with the same Idempotency-Key.",
        retryAfterSeconds: 1,
      });
    }
    const store = unavailableStore(error);
    if (store !== null) {
      request.log.warn({ err: error.message, store }, "store unavailable; answering 503");
      return sendProblem(request, reply, "service_unavailable", {
        detail:
          store === "redis" ? redisUnavailableDetail(error) : `The ${store} is unavailable; retry shortly.`,
        retryAfterSeconds: 1,
      });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(request, reply, "validation_error", { detail: error.message });
    }
    request.log.error({ err: error }, "unhandled error");
    return sendProblem(request, reply, "internal_error");
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, "not_found", { detail: `no route ${request.method} ${request.url}` }),
  );
});

/** Said of every request whose outcome the intake does not know (no answer in time, replicas short of WAIT). */
const RETRY_ANSWERS_OUTCOME =
  "Retry with the same Idempotency-Key: the retry is answered with what happened to this one.";

/**
 * Only a refusal Redis answered (LOADING, OOM, READONLY, ...) proves the script never ran. Without an answer (a
 * timeout, a connection lost after the command was written) it may have: an overloaded intake read its reply
 * too late, and 2,954 such 503s of an overload run had been applied. The retry with the same Idempotency-Key is
 * answered with the first request's outcome either way.
 */
function redisUnavailableDetail(error: unknown): string {
  return error instanceof ReplyError
    ? "The queue refused the request for now; nothing was stored. Retry with the same Idempotency-Key."
    : `The queue did not answer in time, so this request may or may not have been stored. ${RETRY_ANSWERS_OUTCOME}`;
}
