import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";

export interface RecordRefusalInput {
  /** {p}:idem:<userId>:<Idempotency-Key>. */
  idempotencyKey: string;
  fingerprint: string;
  /** > 0. */
  idempotencyTtlSeconds: number;
  /** The refusal another slot decided, as its script answered it. */
  code: number;
  value: string;
}

/**
 * record-refusal-1.lua: records a refusal decided in another slot as the key's answer. The answer is the key's:
 * the refusal given, or what the key got meanwhile (an accepted id, another refusal replayed, -100 a conflict).
 */
export const recordRefusal = luaScript({
  file: "record-refusal-1.lua",
  keys: (input: RecordRefusalInput) => [input.idempotencyKey],
  args: (input: RecordRefusalInput) => [
    input.fingerprint,
    input.idempotencyTtlSeconds,
    input.code,
    input.value,
  ],
  decode: (reply: ScriptAnswerReply): ScriptAnswer => scriptAnswer(reply),
});
