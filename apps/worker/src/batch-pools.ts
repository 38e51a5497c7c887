// The worker's Postgres pools: one per shard and one for the global database, tuned for batch statements.
import type { Config } from "@floodgate/config";
import {
  createKysely,
  type GlobalDatabase,
  type PoolOptions,
  readDeploymentId,
  type ShardDatabase,
  shardIdentityCheck,
} from "@floodgate/db";
import type { Kysely } from "kysely";
import { refuseAndExit } from "./shard-identity-guard.ts";

// Every batch statement looks rows up by a list of keys (`user_id = any($1)`, a join with unnest). Priced as
// disk seeks (Postgres' default of 4), a few hundred lookups cost more than reading the whole table, so the
// planner scanned a shard's 25,000 wallets twice per batch: 36 ms against 10 ms by index (EXPLAIN ANALYZE of
// the lock and the balance update, 500 keys). The shards' working set is in memory, and 1.1 says so.
export const BATCH_RANDOM_PAGE_COST = 1.1;

/** Options for one of the worker's pools: small, lock waits bounded, planner priced for memory. */
export function batchPoolOptions(config: Config, applicationName: string): PoolOptions {
  return {
    max: 2,
    applicationName,
    // A batch waiting on a row lock blocks the whole loop (every shard's acknowledgements wait for it), and
    // past the visibility timeout its entries are claimed by others anyway. So the wait is bounded: the lock
    // timeout (55P03, retryable) makes the shard's entries held and retried like a shard that is down.
    lockTimeoutMs: Math.max(100, Math.floor(config.visibilityTimeoutMs / 2)),
    randomPageCost: BATCH_RANDOM_PAGE_COST,
  };
}

export function createBatchPools(config: Config): {
  shards: Kysely<ShardDatabase>[];
  global: Kysely<GlobalDatabase>;
} {
  const global = createKysely<GlobalDatabase>(
    config.databaseUrl,
    batchPoolOptions(config, "floodgate-worker-global"),
  );
  // Read once (then kept) by the first shard connection that needs it; a failed read is tried again.
  let deployment: Promise<string> | undefined;
  const deploymentId = () => {
    deployment ??= readDeploymentId(global, config.databaseUrl).catch((error: unknown) => {
      deployment = undefined;
      throw error;
    });
    return deployment;
  };
  return {
    // Each new shard connection is checked to be the shard its place says before its first statement: one
    // query per connection (the pools keep theirs), none per batch.
    shards: config.shardUrls.map((url, i) =>
      createKysely<ShardDatabase>(url, {
        ...batchPoolOptions(config, `floodgate-worker-shard-${i}`),
        onNewConnection: shardIdentityCheck(url, i, deploymentId, refuseAndExit),
      }),
    ),
    global,
  };
}
