// What a phase runs against: Floodgate (asynchronous: 202 now, a worker writes the row later) or the
// synchronous baseline (the row is committed before the response). Both expose POST /v1/payments and a
// payments table with id, status, created_at and completed_at.

import type { ShardSet } from "../audits/shard-set.ts";
import type { BenchIdentity } from "./bench-identity.ts";

export interface BenchTarget {
  name: "floodgate" | "baseline";
  baseUrl: string;
  shards: ShardSet;
  /** What the requests carry: customer tokens for Floodgate with auth on; nothing for AUTH=off and the baseline. */
  identity: BenchIdentity;
}
