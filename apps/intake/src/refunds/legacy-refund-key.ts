// A refund's Idempotency-Key as the previous release stored it, `{p}:idem:refund:<paymentId>:<key>`: where the
// user named `refund` paying with key `<paymentId>:<key>` stores theirs too, which is why refunds moved to a
// segment of their own (queue-keys.ts). A refund accepted before an upgrade and retried after it must still be
// that refund, not a second one (the shard would pay a partial refund twice), so until IDEMPOTENCY_TTL_SECONDS
// after the upgrade the intake reads the old key first; a record there whose operation is not a refund is the
// user's, and is none of the refund's business. This costs refunds (the shop's back office, never a sale's hot
// path) one GET more; remove it, and legacyRefundIdempotency, in the release after next.
import { parseOperationId } from "@floodgate/domain";
import type { FastifyInstance } from "fastify";

export type LegacyRefundRecord = { sameRequest: boolean; id: string };

/** The refund recorded under the old layout for this payment and key, if any (record format: idempotency-record.lua). */
export async function legacyRefundRecord(
  { redis, queueKeys }: Pick<FastifyInstance, "redis" | "queueKeys">,
  paymentId: string,
  idempotencyKey: string,
  fingerprint: string,
): Promise<LegacyRefundRecord | null> {
  const partition = queueKeys.partitionForOperation(paymentId)!;
  const record = await redis.get(queueKeys.legacyRefundIdempotency(partition, paymentId, idempotencyKey));
  if (record === null) return null;
  const separator = record.indexOf(" ");
  // "<fingerprint> <id>"; "<fingerprint> !<code> <value>" is a refusal, which a refund never recorded.
  const id = record.slice(separator + 1);
  if (parseOperationId(id)?.kind !== "refund") return null;
  return { sameRequest: record.slice(0, separator) === fingerprint, id };
}
