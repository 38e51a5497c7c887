// Replay or drop one dead letter (claim-dead-letter-3.lua, then XDEL). Exactly once still holds for a replay:
// the message goes back with its ORIGINAL operation id, and the shard's transaction recognises an id it
// already holds (apply-shard-batch.ts: the primary key, looked up once the entry is retried) and reports its
// recorded outcome instead of applying it again.
import { claimDeadLetter, type ScriptedRedis } from "@floodgate/redis-scripts";
import type { DeadLetter } from "./dead-letter-store.ts";
import type { QueueKeys } from "./queue-keys.ts";

export type DeadLetterAction = "replay" | "drop";

export type SettleOutcome =
  | { result: "replayed"; streamEntryId: string }
  | { result: "dropped" }
  /** Another replay or drop claimed it first (at the same time, or after this caller listed it). */
  | { result: "already"; action: DeadLetterAction };

/**
 * A claim outlives any listing an operator may still act on; after it, a stale replay would append the
 * message again, which the shard would still recognise (same operation id): a duplicate entry, not a
 * duplicate effect.
 */
const CLAIM_TTL_SECONDS = 7 * 24 * 3600;

/**
 * The partition the operation's messages go to now: from its id, as the intake computes it (the entry's own
 * `partition` field is the fallback for an id that does not parse, which only a drop accepts).
 */
export function partitionOf(keys: QueueKeys, letter: DeadLetter): number {
  return keys.partitionForOperation(letter.operationId) ?? letter.partition;
}

export async function settleDeadLetter(
  redis: ScriptedRedis,
  keys: QueueKeys,
  letter: DeadLetter,
  action: DeadLetterAction,
): Promise<SettleOutcome> {
  const partition = partitionOf(keys, letter);
  // Two calls, on purpose: the claim, status and append share the partition's slot; the dead-letter stream is
  // in its own (`{dlq}`, one stream for all partitions), so the XDEL comes after, and a second one by whoever
  // lost the claim is harmless. Neither call spans slots, so this runs on a Redis Cluster as it is.
  const { code, streamEntryId, claimedAction } = await claimDeadLetter.run(redis, {
    claimKey: keys.deadLetterClaim(partition, letter.deadLetterId),
    statusKey: keys.status(partition, letter.operationId),
    streamKey: keys.stream(partition),
    action,
    operationId: letter.operationId,
    encodedMessage: letter.message,
    claimTtlSeconds: CLAIM_TTL_SECONDS,
  });
  await redis.xdel(keys.deadLetters(), letter.deadLetterId);
  if (code === 0) return { result: "already", action: claimedAction! };
  if (code !== 1) throw new Error(`claim-dead-letter-3.lua returned an unknown code ${code}`);
  return action === "replay" ? { result: "replayed", streamEntryId } : { result: "dropped" };
}
