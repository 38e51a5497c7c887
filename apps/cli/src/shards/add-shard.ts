// `./floodgate shards add <url>`: prepare the new shard (created, migrated, its identity recorded: the same
// code as migrate), plan the buckets it takes, and move them (bucket-mover.ts). Returns the exit status.
import type { Config } from "@floodgate/config";
import {
  checkShardIdentities,
  createKysely,
  type GlobalDatabase,
  readShardMap,
  redactUrl,
  type ShardDatabase,
} from "@floodgate/db";
import { prepareDatabases } from "../prepare-databases.ts";
import { type BucketMove, MoveVerificationError, moveBuckets, recordedMoves } from "./bucket-mover.ts";
import { bucketRanges, fairShare, planMoves } from "./shard-move-plan.ts";

export interface AddShardOptions {
  url: string;
  buckets?: number;
  dryRun: boolean;
}

function describePlan(moves: BucketMove[]): string[] {
  const byFrom = new Map<number, number[]>();
  for (const m of moves) byFrom.set(m.from, [...(byFrom.get(m.from) ?? []), m.bucket]);
  return [...byFrom].map(
    ([from, buckets]) => `  from shard ${from}: buckets ${bucketRanges(buckets)} (${buckets.length})`,
  );
}

export async function addShard(
  config: Config,
  options: AddShardOptions,
  out: (line: string) => void,
): Promise<number> {
  const listed = config.shardUrls.indexOf(options.url);
  const index = listed >= 0 ? listed : config.shardUrls.length;
  const shardUrls = listed >= 0 ? config.shardUrls : [...config.shardUrls, options.url];
  const where = `shard ${index} ${redactUrl(options.url)}`;
  const global = createKysely<GlobalDatabase>(config.databaseUrl, {
    max: 2,
    applicationName: "floodgate-shards",
  });
  const shards = shardUrls.map((url) =>
    createKysely<ShardDatabase>(url, { max: 2, applicationName: "floodgate-shards" }),
  );
  try {
    const { map } = await readShardMap(global, shardUrls.length);
    const pending = await recordedMoves(global);
    const moves = planMoves(map, index, options.buckets ?? fairShare(map, index), pending);
    if (options.dryRun) {
      out(
        `dry run: would create (if missing) and migrate ${where}${listed >= 0 ? "" : " (not in SHARD_URLS yet)"}`,
      );
      for (const m of pending)
        out(`would resume the move of bucket ${m.bucket} to shard ${m.to} (${m.phase})`);
      out(`would move ${moves.length} buckets to shard ${index}:`);
      for (const line of describePlan(moves)) out(line);
      out("nothing was changed");
      return 0;
    }
    await prepareDatabases(config.databaseUrl, shardUrls, out);
    out(`${where} is migrated and records its identity`);
    if (listed < 0) {
      out(
        `SHARD_URLS does not list it: add it last to SHARD_URLS of every process, restart them, then run ` +
          "shards add again to move its buckets",
      );
      return 1;
    }
    await checkShardIdentities(config.databaseUrl, shardUrls);
    out(
      `moving ${moves.length} buckets to shard ${index}${pending.length ? ` after ${pending.length} unfinished` : ""}:`,
    );
    for (const line of describePlan(moves)) out(line);
    await moveBuckets({ global, shards }, moves, out);
    const after = await readShardMap(global, shardUrls.length);
    for (const r of after.map.ranges()) out(`  buckets ${r.fromBucket}-${r.toBucket}: shard ${r.shard}`);
    out(`done: map version ${after.version}`);
    return 0;
  } catch (error) {
    if (error instanceof MoveVerificationError) {
      out(`${error.message}; the bucket stays paused on its old shard: see docs/operations.md`);
      return 1;
    }
    throw error;
  } finally {
    await Promise.all([global, ...shards].map((db) => db.destroy()));
  }
}
