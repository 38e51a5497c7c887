import { luaScript } from "../lua-script.ts";
import type { EndedSessionPass } from "./release-order.ts";

/** One order line: the user's unpaid units of its product. */
export interface UnpaidLine {
  /** {p}:unpaid:<productId>:<userId>. */
  unpaidUnitsKey: string;
  quantity: number;
}

export interface SettleUnpaidUnitsInput {
  /** {p}:order:<orderId>, the order's state (its `unpaid` mark). */
  orderStateKey: string;
  lines: readonly UnpaidLine[];
  /** The order's waiting-room session: checkout done, its pass stops admitting (includes/ended-session-pass.lua). */
  endedSession?: EndedSessionPass;
}

export interface SettleUnpaidUnitsResult {
  /** The order's state exists (false: nothing touched; the counters' TTL catches what they held). */
  orderStateFound: boolean;
  /** Lowered by this call; false: settled or released before, never counted, or no state. */
  loweredNow: boolean;
}

/** settle-unpaid-units-n.lua: a paid order's units stop counting against the user's cap, once. */
export const settleUnpaidUnits = luaScript({
  file: "settle-unpaid-units-n.lua",
  keys: (input: SettleUnpaidUnitsInput) => [
    input.orderStateKey,
    ...input.lines.map((line) => line.unpaidUnitsKey),
    ...(input.endedSession ? [input.endedSession.passesKey] : []),
  ],
  args: (input: SettleUnpaidUnitsInput) => [
    ...input.lines.map((line) => line.quantity),
    input.endedSession?.ticketId ?? "",
  ],
  decode: (code: number): SettleUnpaidUnitsResult => ({
    orderStateFound: code !== -1,
    loweredNow: code === 1,
  }),
});
