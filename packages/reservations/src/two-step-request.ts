// What the two-step requests share (a coupon issue, an order, on a Redis Cluster): the item's units are reserved
// in the item's slot beside the user's admission (admit-request-4.lua), then the request is recorded in the
// user's slot within COMMIT_WINDOW_MS, or the units go back (released by the intake, or swept by a worker).
// issue-coupon-in-two-steps.ts and reserve-order-in-two-steps.ts say what each reserves and records.

/** How long after its reservation a commit may still record the request; the sweep waits far longer. */
export const COMMIT_WINDOW_MS = 5_000;

/** admit-request-4.lua: admitted, the key holds no record: reserve and commit. */
export const ADMITTED = 2;
/** admit-request-4.lua, record-refusal-1.lua, the commit scripts: same key, different body. */
export const KEY_CONFLICT = -100;
/** The commit scripts: later than the window, nothing written. */
export const COMMIT_TOO_LATE = -101;

/**
 * The commit came later than COMMIT_WINDOW_MS after the reservation (the intake stalled between the steps):
 * nothing was recorded and the units were given back. Answered like a store that did not answer in time (503,
 * retry with the same Idempotency-Key).
 */
export class CommitTooLateError extends Error {
  constructor(what: string) {
    super(`${what} was not recorded: its commit came more than ${COMMIT_WINDOW_MS} ms after its reservation`);
    this.name = "CommitTooLateError";
  }
}

/** A coupon reservation as listed in the coupon's slot: the id and its user's (user ids hold no space). */
export function reservationMember(id: string, userId: string): string {
  return `${id} ${userId}`;
}

/** A product reservation as listed in the product's slot: the order, its user and the units held. */
export function stockReservationMember(orderId: string, userId: string, units: number): string {
  return `${orderId} ${userId} ${units}`;
}
