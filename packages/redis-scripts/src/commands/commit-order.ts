import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";
import { type AdmissionGate, oneShotCommitArgs, sessionArgs } from "./includes/admission-gate.ts";
import { type OrderFields, type OrderKeys, orderFieldArgs, orderKeyList } from "./reserve-order.ts";

export interface CommitOrderInput {
  keys: OrderKeys;
  fields: OrderFields;
  /** The earliest reservedAtMs of the order's products. */
  reservedAtMs: number;
  /** A commit later than this after the reservation writes nothing (-101). */
  commitWindowMs: number;
  /** Every line, with what its product's reservation answered. */
  lines: { productId: string; quantity: number; unitPrice: number; maxUnitsPerUser: number | null }[];
  /**
   * The first step's gate: a one-shot room's token is consumed here, with the order's record; its session (the
   * room and ticket of its admission token) goes into the order's stream message.
   */
  admission?: AdmissionGate;
}

/**
 * commit-order-5.lua: the user's slot records an order whose units every product's slot holds. Codes as
 * reserve-order-n.lua's (-4 .. -8 only), plus -101 too late (nothing written), -91 "used" (a one-shot token used since the first step). Its keys stay a fixed five (the
 * unpaid counters are named in Lua from the order state's key): see the script.
 */
export const commitOrder = luaScript({
  file: "commit-order-5.lua",
  keys: (input: CommitOrderInput) => orderKeyList(input.keys),
  args: (input: CommitOrderInput) => [
    ...orderFieldArgs(input.fields),
    input.reservedAtMs,
    input.commitWindowMs,
    input.lines.length,
    ...input.lines.flatMap((line) => [
      line.productId,
      line.quantity,
      line.unitPrice,
      line.maxUnitsPerUser ?? "",
    ]),
    ...oneShotCommitArgs(input.admission),
    ...sessionArgs(input.admission),
  ],
  decode: (reply: ScriptAnswerReply): ScriptAnswer => scriptAnswer(reply),
});
