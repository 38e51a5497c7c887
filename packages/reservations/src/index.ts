// Stock and coupons at the edge: the Redis copies of products and coupons that accepted requests take from,
// orders and coupon issues reserved in one script on one Redis or in two steps on a Redis Cluster (a
// reservation in the item's slot, a commit in the user's), the sweep and strike-offs of those reservations,
// and what gives units back or settles them (an order's release, its end requested, paid units settled). The
// key layout and the admission block come from @floodgate/queue: an accepted request is also a stream entry.
export { deleteCouponState, readIssuedCounts, writeCouponState } from "./coupon-state.ts";
export { issueCoupon } from "./issue-coupon.ts";
export { IssueCouponCode, type IssueCouponOutcome } from "./issue-coupon-outcome.ts";
export * from "./product-state.ts";
export {
  ORDER_STATE_GRACE_SECONDS,
  type OrderRelease,
  releaseOrders,
  type SessionPassesKey,
} from "./release-order.ts";
export { type OrderEndOutcome, requestOrderEnd } from "./request-order-end.ts";
export {
  SWEEP_AFTER_MS,
  type SweepResult,
  sweepCouponReservations,
  sweepStockReservations,
} from "./reservation-sweep.ts";
export { reserveOrder } from "./reserve-order.ts";
export {
  type OverLimitLine,
  ReserveOrderCode,
  type ReserveOrderOutcome,
  type ShortLine,
} from "./reserve-order-outcome.ts";
export { NO_COUPON, type ReserveOrderRequest } from "./reserve-order-request.ts";
export { type PaidOrder, settlePaidOrders } from "./settle-unpaid-units.ts";
export {
  COMMIT_WINDOW_MS,
  CommitTooLateError,
  reservationMember,
  stockReservationMember,
} from "./two-step-request.ts";
