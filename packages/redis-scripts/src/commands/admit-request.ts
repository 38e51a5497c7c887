import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";
import { type AdmissionGate, gateArgs, gateKeys } from "./includes/admission-gate.ts";

export interface AdmitRequestInput {
  admission: AdmissionGate;
  /** {p}:idem:<userId>:<Idempotency-Key>; ignored when idempotencyTtlSeconds is 0. */
  idempotencyKey: string;
  fingerprint: string;
  /** 0 without an Idempotency-Key. */
  idempotencyTtlSeconds: number;
}

/**
 * admit-request-4.lua: the user's half of a two-step request on a cluster (admission and the key's record).
 * code 2 go on (ADMITTED in packages/reservations two-step-request.ts), 0 an accepted replay, -100 a key conflict, a replayed refusal, or -90/-91.
 */
export const admitRequest = luaScript({
  file: "admit-request-4.lua",
  keys: (input: AdmitRequestInput) => gateKeys(input.admission, input.idempotencyKey),
  args: (input: AdmitRequestInput) =>
    gateArgs(input.admission, input.fingerprint, input.idempotencyTtlSeconds),
  decode: (reply: ScriptAnswerReply): ScriptAnswer => scriptAnswer(reply),
});
