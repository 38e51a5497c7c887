import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { Cluster, Redis } from "ioredis";
import type { Kysely } from "kysely";

/** The stores reconcile reads and repairs. */
export interface ReconcileStores {
  global: Kysely<GlobalDatabase>;
  shards: Kysely<ShardDatabase>[];
  /** A connection used by nothing else during the run: reconcile WATCHes keys on it (WATCH is per connection). */
  redis: Redis | Cluster;
  keys: QueueKeys;
}
