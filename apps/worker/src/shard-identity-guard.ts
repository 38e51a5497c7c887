// A worker writes to every shard, so it refuses a SHARD_URLS entry whose database is another shard or belongs to
// another deployment (packages/db check-shard-identity.ts): all of them before its first batch, and each new
// shard connection after (batch-pools.ts), which covers a shard that was out of reach at start. A refusal ends
// the process with the one line that names both shards (exit 78: `start` does not restart it).
import type { Config } from "@floodgate/config";
import { checkShardIdentities, ShardIdentityError } from "@floodgate/db";
import type { Logger } from "pino";

export function refuseAndExit(error: ShardIdentityError): never {
  process.stderr.write(`floodgate worker: ${error.message}\n`);
  process.exit(78);
}

/** Checks every shard it can reach now; a shard down at start is checked on its first connection. */
export async function checkShardIdentitiesOrExit(config: Config, log: Logger): Promise<void> {
  try {
    const unverified = await checkShardIdentities(config.databaseUrl, config.shardUrls, {
      skipUnreachable: true,
    });
    if (unverified.length > 0) {
      log.warn({ shards: unverified }, "shards out of reach: each is checked on its first connection");
    }
  } catch (error) {
    if (error instanceof ShardIdentityError) refuseAndExit(error);
    throw error;
  }
}
