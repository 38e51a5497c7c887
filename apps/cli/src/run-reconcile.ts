// Opens the stores reconcile needs, runs it and closes them: shared by `./floodgate reconcile` and `start`.
import { checkShardIdentities, createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import {
  type ReconcileProgress,
  type ReconcileReport,
  reconcile,
  recordReconcileResult,
} from "@floodgate/reconcile";
import { createRedis, waitForRedis } from "@floodgate/redis-connections";

export interface ReconcileTarget {
  redisUrl: string;
  redisPrefix: string;
  streamPartitions: number;
  databaseUrl: string;
  shardUrls: string[];
}

export interface RunReconcileOptions {
  dryRun: boolean;
  /** A progress line, at most every `progressEveryMs`, once the run has taken that long. */
  progress?: (line: string) => void;
  progressEveryMs?: number;
}

export async function runReconcile(
  target: ReconcileTarget,
  options: RunReconcileOptions,
): Promise<ReconcileReport> {
  // Repairing Redis from a shard that is not the one its position says would copy the wrong shard's counts.
  await checkShardIdentities(target.databaseUrl, target.shardUrls);
  await refuseDuringBucketMove(target.databaseUrl);
  // Its own connection for the reads; the repairs open their own, one per node, for their WATCHes.
  const redis = createRedis(target.redisUrl, { name: "floodgate-reconcile" });
  redis.on("error", () => {}); // reported by the command that fails, not as an unhandled event
  const global = createKysely<GlobalDatabase>(target.databaseUrl, {
    max: 1,
    applicationName: "floodgate-reconcile",
  });
  const shards = target.shardUrls.map((url) =>
    createKysely<ShardDatabase>(url, { max: 1, applicationName: "floodgate-reconcile" }),
  );
  try {
    await waitForRedis(redis);
    const keys = new QueueKeys(target.redisPrefix, target.streamPartitions);
    const report = await reconcile(
      { global, shards, redis, keys },
      { dryRun: options.dryRun, onProgress: progressPrinter(options) },
    );
    // For the drift alert (intake /metrics); a dry run writes nothing, this included.
    if (!options.dryRun) await recordReconcileResult(redis, keys, report);
    return report;
  } finally {
    redis.disconnect();
    await Promise.all([global, ...shards].map((db) => db.destroy()));
  }
}

/**
 * A bucket being moved has its rows on two shards between the copy and the deletion (shards/bucket-mover.ts):
 * counted twice, coupon issues would make a repair lower what Redis lets issue. Such a run is refused.
 */
async function refuseDuringBucketMove(databaseUrl: string): Promise<void> {
  const global = createKysely<GlobalDatabase>(databaseUrl, {
    max: 1,
    applicationName: "floodgate-reconcile",
  });
  try {
    const moves = await global.selectFrom("shard_moves").select("bucket").execute();
    if (moves.length > 0) {
      throw new Error(
        `${moves.length} bucket move(s) unfinished (./floodgate shards lists them): their rows may be on two ` +
          "shards; finish them with ./floodgate shards add, then reconcile",
      );
    }
  } finally {
    await global.destroy();
  }
}

function progressPrinter(options: RunReconcileOptions) {
  const { progress } = options;
  if (!progress) return undefined;
  const every = options.progressEveryMs ?? 2000;
  const started = Date.now();
  let last = started;
  return ({ phase, done, total }: ReconcileProgress) => {
    const now = Date.now();
    if (now - last < every) return;
    last = now;
    progress(`checking ${phase}: ${done}/${total} (${Math.round((now - started) / 1000)} s)`);
  };
}
