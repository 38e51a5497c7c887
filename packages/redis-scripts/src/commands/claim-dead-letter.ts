import { luaScript } from "../lua-script.ts";

export type DeadLetterClaimAction = "replay" | "drop";

export interface ClaimDeadLetterInput {
  /** {p}:dlq:<dead-letter entry id>: whoever sets it first owns the dead letter. */
  claimKey: string;
  /** QueueKeys.status of the operation: pending again on a replay. */
  statusKey: string;
  /** {p}:ops, the partition's stream a replay appends the message to. */
  streamKey: string;
  action: DeadLetterClaimAction;
  /** The dead letter's operation id, kept by the replay. */
  operationId: string;
  /** The dead letter's `m` (only read for a replay). */
  encodedMessage: string;
  /** How long the claim lives: longer than any listing an operator still acts on. */
  claimTtlSeconds: number;
}

export interface ClaimDeadLetterResult {
  /** 1 claimed now (replayed or dropped), 0 claimed before by another call (nothing written). */
  code: number;
  /** Claimed now by a replay: the message's new stream entry id; by a drop, or claimed before: "". */
  streamEntryId: string;
  /** Claimed before: that claim's action; undefined when claimed now. */
  claimedAction: DeadLetterClaimAction | undefined;
}

/**
 * claim-dead-letter-3.lua: claims a dead letter for a replay (status pending again, message appended with its
 * operation id) or a drop, once; a later claim gets the first one's action back. The caller XDELs the entry.
 */
export const claimDeadLetter = luaScript({
  file: "claim-dead-letter-3.lua",
  keys: (input: ClaimDeadLetterInput) => [input.claimKey, input.statusKey, input.streamKey],
  args: (input: ClaimDeadLetterInput) => [
    input.action,
    input.operationId,
    input.encodedMessage,
    input.claimTtlSeconds,
  ],
  decode: ([code, value]: [number, string]): ClaimDeadLetterResult => ({
    code,
    streamEntryId: code === 1 ? value : "",
    claimedAction: code === 0 ? (value as DeadLetterClaimAction) : undefined,
  }),
});
