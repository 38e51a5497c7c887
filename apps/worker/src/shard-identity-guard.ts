// A worker writes to every shard, so before its first batch it checks that each SHARD_URLS entry is the shard of
// this deployment its position says (packages/db check-shard-identity.ts). A shard out of reach at start (a
// worker must start during a shard outage) is checked again every few seconds until it answers; a wrong shard,
// now or then, ends the process with the one line that names it (exit 78: `start` does not restart it).
import type { Config } from "@floodgate/config";
import { checkShardIdentities, ShardIdentityError } from "@floodgate/db";
import type { Logger } from "pino";

const RECHECK_MS = 2000;

function refuse(error: ShardIdentityError): never {
  process.stderr.write(`floodgate worker: ${error.message}\n`);
  process.exit(78);
}

/** Resolves once the reachable shards are verified; returns a function that stops checking the others. */
export async function guardShardIdentities(config: Config, log: Logger): Promise<() => void> {
  const check = async (shards?: number[]) => {
    try {
      return await checkShardIdentities(config.databaseUrl, config.shardUrls, {
        shards,
        skipUnreachable: true,
      });
    } catch (error) {
      if (error instanceof ShardIdentityError) refuse(error);
      throw error;
    }
  };
  let unverified = await check();
  let timer: NodeJS.Timeout | undefined;
  const recheck = () => {
    if (unverified.length === 0) return;
    log.warn({ shards: unverified }, "shards out of reach: their identity is checked once they answer");
    timer = setTimeout(async () => {
      unverified = await check(unverified).catch(() => unverified);
      recheck();
    }, RECHECK_MS);
    timer.unref();
  };
  recheck();
  return () => clearTimeout(timer);
}
