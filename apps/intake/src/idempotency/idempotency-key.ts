// The Idempotency-Key header as every creating POST reads it (payments, deposits, refunds, orders, coupon
// issues): the key checked once, the replay marked, the reuse with another body explained the same way.
import { IDEMPOTENCY_KEY_PATTERN } from "@floodgate/domain";
import type { FastifyRequest } from "fastify";
import { ProblemError, type ProblemExtras } from "../errors/error-catalogue.ts";

/** Stripe's mark on an answer that is an Idempotency-Key's recorded first answer, not a new decision. */
export const REPLAYED_HEADER = { "Idempotent-Replayed": "true" } as const;

/** The 422 for a key reused with another body: names the key's operation, if its first request created one. */
export function conflictExtras(existingId: string): ProblemExtras {
  return existingId === ""
    ? { field: "Idempotency-Key", detail: "this key's first request, with a different body, was refused" }
    : { field: "Idempotency-Key", existingId };
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers["idempotency-key"];
  if (header === undefined) return undefined;
  if (typeof header !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new ProblemError("invalid_idempotency_key", { field: "Idempotency-Key" });
  }
  return header;
}

/**
 * For the POSTs a retry must never repeat (a refund, a provider payment): the key is required. `why` ends the
 * detail: "a <what> needs an Idempotency-Key, so that <why>".
 */
export function requiredIdempotencyKey(request: FastifyRequest, what: string, why: string): string {
  const idempotencyKey = idempotencyKeyOf(request);
  if (idempotencyKey === undefined) {
    const detail = `${what} needs an Idempotency-Key, so that ${why}`;
    throw new ProblemError("validation_error", {
      field: "Idempotency-Key",
      detail,
      errors: [{ field: "Idempotency-Key", detail }],
    });
  }
  return idempotencyKey;
}
