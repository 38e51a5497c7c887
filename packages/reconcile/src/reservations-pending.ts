// An item with units reserved by a request still in flight. On a Redis Cluster the first step of a coupon issue
// or an order reserves in the item's slot, and the user's partition records the request after it (or a sweep
// gives the units back): in between, Redis is ahead of Postgres while no stream has moved. Such an item is not
// compared, and above all not "repaired" back, which would put the reserved units on sale a second time. On one
// Redis the set stays empty.
import type { DriftFinding } from "./drift-finding.ts";

export function reservationsPending(subject: "product" | "coupon", id: string, count: number): DriftFinding {
  return {
    subject,
    id,
    kind: "reservations_pending",
    detail: `in flight: ${count} reservations pending`,
    needsDrained: true,
    outcome: "not_repaired",
    notApplied:
      "needs the queue drained (the requests recorded, or the sweep giving the units back); run again",
  };
}
