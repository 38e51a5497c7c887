// Most scripts that accept or refuse a request answer {code, value[, admission[, replayed]]}: the code says what
// happened (1 stored, 0 an accepted replay, negative a refusal named by the script), the value carries its id or
// detail, `admission` the gate's bucket info on an accepted path, and a refusal replayed from an
// Idempotency-Key's record ends with a 1 (includes/idempotency-record.lua).
export interface ScriptAnswer {
  code: number;
  value: string;
  /** "<userRemaining>,<userResetMs>" after the admission gate let the request through; undefined otherwise. */
  admission: string | undefined;
  /** A refusal answered from the Idempotency-Key's record, not decided now. */
  replayed: boolean;
}

export type ScriptAnswerReply = [number, string | number, string?, number?];

export function scriptAnswer([code, value, admission, replayed]: ScriptAnswerReply): ScriptAnswer {
  return {
    code,
    value: String(value),
    admission: admission === "" ? undefined : admission,
    replayed: replayed === 1,
  };
}

/**
 * The answers of a script that takes many requests, in order: each request's ScriptAnswer, or the Error its part
 * failed with (an error reply inside the call's reply: includes/each-request.lua), for its caller alone.
 */
export function scriptAnswers(replies: readonly (ScriptAnswerReply | Error)[]): (ScriptAnswer | Error)[] {
  return replies.map((reply) => (reply instanceof Error ? reply : scriptAnswer(reply)));
}
