import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { Cluster, Redis } from "ioredis";
import type { Kysely } from "kysely";

/** The stores reconcile reads and repairs. */
export interface ReconcileStores {
  global: Kysely<GlobalDatabase>;
  shards: Kysely<ShardDatabase>[];
  /**
   * Reads go through it (one Redis or a cluster); the repairs WATCH and EXEC on connections of their own, one
   * per node, opened from its nodes (node-connections.ts).
   */
  redis: Redis | Cluster;
  keys: QueueKeys;
}
