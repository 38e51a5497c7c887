import { luaScript } from "../lua-script.ts";

/** One order line: its product's stock and the user's unpaid units of that product. */
export interface ReleasedLine {
  /** {prd_...}:product; on a Redis Cluster a stand-in in the order's slot that never exists (return-stock-2.lua
   * gives the units back there). */
  productStateKey: string;
  /** {p}:unpaid:<productId>:<userId>. */
  unpaidUnitsKey: string;
  quantity: number;
}

export interface ReleaseOrderInput {
  /** {p}:order:<orderId>, the order's state. */
  orderStateKey: string;
  /** {p}:cis:<couponIssueId>, the coupon's redemption record; a key that never exists when the order has none. */
  couponIssueKey: string;
  orderId: string;
  lines: readonly ReleasedLine[];
  /** The order's waiting-room session: its pass stops admitting (includes/ended-session-pass.lua). */
  endedSession?: EndedSessionPass;
}

/** A session's pass in the user's slot ({p}:pass:<roomId>:<userId>) and its ticket. */
export interface EndedSessionPass {
  passesKey: string;
  ticketId: string;
}

export interface ReleaseOrderResult {
  /** The order's state exists (false: nothing touched; reconcile repairs the counters). */
  orderStateFound: boolean;
  /** Released by this call; false when released before (or no state). */
  releasedNow: boolean;
}

/**
 * release-order-n.lua: gives back what an order that ended without a sale reserved (stock, coupon, unpaid
 * units), once. Keys: the order's state, the coupon record, every line's product, then every line's counter.
 */
export const releaseOrder = luaScript({
  file: "release-order-n.lua",
  keys: (input: ReleaseOrderInput) => [
    input.orderStateKey,
    input.couponIssueKey,
    ...input.lines.map((line) => line.productStateKey),
    ...input.lines.map((line) => line.unpaidUnitsKey),
    ...(input.endedSession ? [input.endedSession.passesKey] : []),
  ],
  args: (input: ReleaseOrderInput) => [
    input.orderId,
    ...input.lines.map((line) => line.quantity),
    input.endedSession?.ticketId ?? "",
  ],
  decode: (code: number): ReleaseOrderResult => ({ orderStateFound: code !== -1, releasedNow: code === 1 }),
});
