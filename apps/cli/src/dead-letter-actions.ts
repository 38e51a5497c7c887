// What `./floodgate dlq replay|drop` do to the dead letters, one or all, each through settleDeadLetter (a claim
// per entry, so two operators acting on the same entry at once settle it once).
import {
  type DeadLetter,
  type DeadLetterAction,
  deadLettersNow,
  findDeadLetters,
  partitionOf,
  type QueueKeys,
  readDeadLetters,
  settleDeadLetter,
} from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { replayRefusal, viewDeadLetter } from "./dead-letter-view.ts";

export interface ActionOutput {
  out(line: string): void;
  progress(line: string): void;
}

const PAST: Record<DeadLetterAction, string> = { replay: "replayed", drop: "dropped" };
/** `--all` says how far it got every this many entries, once there are more than that. */
const PROGRESS_EVERY = 100;

/** Replays or drops the dead letters of one operation id (or one dead-letter entry id); true when it did. */
export async function settleOne(
  redis: ScriptedRedis,
  keys: QueueKeys,
  id: string,
  action: DeadLetterAction,
  output: ActionOutput,
): Promise<boolean> {
  const letters = await findDeadLetters(redis, keys, id);
  if (letters.length === 0) {
    output.out(`no dead letter ${id} (replayed or dropped already, or never dead-lettered)`);
    return false;
  }
  const [first, ...duplicates] = letters as [DeadLetter, ...DeadLetter[]];
  if (action === "replay") {
    const refusal = replayRefusal(viewDeadLetter(first));
    if (refusal !== null) {
      output.out(`refused to replay ${first.operationId}: ${refusal}`);
      return false;
    }
  }
  const outcome = await settleDeadLetter(redis, keys, first, action);
  // The worker may have dead-lettered one entry twice: the copies go with the first.
  for (const duplicate of duplicates) await settleDeadLetter(redis, keys, duplicate, "drop");
  const copies = duplicates.length > 0 ? ` (and dropped ${duplicates.length} duplicate entries)` : "";
  if (outcome.result === "already") {
    output.out(
      `${first.operationId} was already ${PAST[outcome.action]} by another dlq command; nothing done`,
    );
    return false;
  }
  if (outcome.result === "replayed") {
    output.out(
      `replayed ${first.operationId} to partition ${partitionOf(keys, first)} (stream entry ${outcome.streamEntryId}); ` +
        `its status is pending until a worker applies it${copies}`,
    );
  } else {
    output.out(
      `dropped ${first.operationId}; its status stays failed (dead_lettered) until it expires${copies}`,
    );
  }
  return true;
}

/**
 * Every dead letter there is when it starts, oldest first; true when none was refused. It stops at the newest
 * of those: a replayed message that fails again is dead-lettered anew (same operation id, a later entry), and
 * must neither be replayed again in a loop nor be taken for a duplicate and dropped.
 */
export async function settleAll(
  redis: ScriptedRedis,
  keys: QueueKeys,
  action: DeadLetterAction,
  output: ActionOutput,
): Promise<boolean> {
  const { count: total, newest } = await deadLettersNow(redis, keys);
  const settled = new Set<string>();
  const counts = { done: 0, refused: 0, already: 0, duplicates: 0 };
  let seen = 0;
  const tally = () =>
    `${PAST[action]} ${counts.done}, refused ${counts.refused}, already settled by another command ` +
    `${counts.already}, duplicate entries dropped ${counts.duplicates}`;
  for await (const letter of newest === null ? [] : readDeadLetters(redis, keys, newest)) {
    seen += 1;
    if (settled.has(letter.operationId)) {
      await settleDeadLetter(redis, keys, letter, "drop");
      counts.duplicates += 1;
    } else {
      const refusal = action === "replay" ? replayRefusal(viewDeadLetter(letter)) : null;
      if (refusal !== null) {
        output.out(`refused to replay ${letter.operationId}: ${refusal}`);
        counts.refused += 1;
      } else {
        const outcome = await settleDeadLetter(redis, keys, letter, action);
        settled.add(letter.operationId);
        if (outcome.result === "already") counts.already += 1;
        else counts.done += 1;
      }
    }
    if (total > PROGRESS_EVERY && seen % PROGRESS_EVERY === 0) {
      output.progress(`${seen} of ${total} dead letters: ${tally()}`);
    }
  }
  output.out(`${tally()}${counts.refused > 0 ? " (the refused stay in the dead letters)" : ""}`);
  return counts.refused === 0;
}
