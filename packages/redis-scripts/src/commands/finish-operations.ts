import { luaScript } from "../lua-script.ts";

/** One operation's final status, written to its status hash. */
export interface FinishedStatus {
  /** Its status hash in the call's partition (QueueKeys.status). */
  statusKey: string;
  /**
   * Where the release before tail-keyed statuses kept it ({p}:op:<operationId>), for the kinds that moved: used
   * when the status hash does not exist (an operation accepted before the upgrade).
   */
  formerStatusKey?: string | undefined;
  /** The final status ("succeeded", "failed", ...). */
  status: string;
  /** Epoch ms. */
  completedAt: number;
  /** Absent (or "") for none: the hash then gets no failureReason field. */
  failureReason?: string | undefined;
}

export interface FinishOperationsInput {
  /** {p}:ops, the partition's stream. */
  streamKey: string;
  /** The consumer group the entries are acknowledged in. */
  group: string;
  /** How long a final status stays readable from Redis. */
  statusTtlSeconds: number;
  /** How long a status hash that is also its Idempotency-Key's record is kept, when longer. */
  idempotencyTtlSeconds: number;
  /** The partition's stream entry ids to acknowledge. */
  entryIds: readonly string[];
  /** The final statuses of operations of this partition. */
  statuses: readonly FinishedStatus[];
}

export interface FinishOperationsResult {
  /** Stream entries acknowledged now (an entry acknowledged before does not count). */
  acknowledged: number;
}

/**
 * finish-operations-n.lua: one partition's final statuses (with their TTL) and its XACKs, in one call. Its keys
 * are the stream then one status hash per status, all in the partition's slot.
 */
export const finishOperations = luaScript({
  file: "finish-operations-n.lua",
  keys: (input: FinishOperationsInput) => [
    input.streamKey,
    ...input.statuses.flatMap((final) =>
      final.formerStatusKey === undefined ? [final.statusKey] : [final.statusKey, final.formerStatusKey],
    ),
  ],
  args: (input: FinishOperationsInput) => [
    input.group,
    input.statusTtlSeconds,
    input.idempotencyTtlSeconds,
    input.entryIds.length,
    ...input.entryIds,
    ...input.statuses.flatMap((final) => [
      final.status,
      final.completedAt,
      final.failureReason ?? "",
      final.formerStatusKey === undefined ? "0" : "1",
    ]),
  ],
  decode: (acknowledged: number): FinishOperationsResult => ({ acknowledged: Number(acknowledged) }),
});
