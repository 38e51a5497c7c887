import type { Config } from "@floodgate/config";
import {
  checkShardIdentities,
  createKysely,
  readDeploymentId,
  type ShardDatabase,
  ShardMapWatch,
  shardIdentityCheck,
} from "@floodgate/db";
import { bucketForUser, type ShardMap } from "@floodgate/shard-router";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Kysely } from "kysely";
import { markPoolErrors } from "../errors/store-errors.ts";

export interface Shards {
  /** The map the global database records, as last polled (see ShardMapWatch). */
  readonly map: ShardMap;
  databases: Kysely<ShardDatabase>[];
  forBucket(bucket: number): Kysely<ShardDatabase>;
  forUser(userId: string): Kysely<ShardDatabase>;
}

declare module "fastify" {
  interface FastifyInstance {
    shards: Shards;
  }
}

// Read paths only (status after its Redis TTL, wallets, readiness): accepting a request never touches Postgres.
export const shardsPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  // A swapped SHARD_URLS would answer wallets from the wrong shard: every shard reachable now is checked before
  // the intake serves, and each new connection after (a shard down at start is checked when it comes back; a
  // refused connection fails its read, logged, rather than answering from the wrong database).
  await checkShardIdentities(config.databaseUrl, config.shardUrls, { skipUnreachable: true });
  let deployment: Promise<string> | undefined;
  const deploymentId = () => {
    deployment ??= readDeploymentId(app.globalDb, config.databaseUrl).catch((error: unknown) => {
      deployment = undefined;
      throw error;
    });
    return deployment;
  };
  const refused = (error: Error) => app.log.error({ err: error.message }, "shard identity refused");
  // Which shard owns a bucket is the global database's record (buckets move with `./floodgate shards add`);
  // polled, so a read follows a moved bucket within SHARD_MAP_POLL_MS and no request queries it.
  const watch = await ShardMapWatch.start(app.globalDb, config.shardUrls.length, {
    onError: (error) =>
      app.log.warn({ err: error.message }, "could not poll the shard map; keeping the last"),
  });
  const databases = config.shardUrls.map((url, i) =>
    createKysely<ShardDatabase>(url, {
      max: 4,
      applicationName: `floodgate-intake-shard-${i}`,
      timeouts: config.postgresTimeouts,
      onNewConnection: shardIdentityCheck(url, i, deploymentId, refused),
      decoratePool: (pool) => markPoolErrors(pool, `shard ${i} database`),
    }),
  );
  const forBucket = (bucket: number) => databases[watch.current.map.shardForBucket(bucket)]!;
  app.decorate("shards", {
    get map() {
      return watch.current.map;
    },
    databases,
    forBucket,
    forUser: (userId: string) => forBucket(bucketForUser(userId)),
  });
  app.addHook("onClose", async () => {
    watch.close();
    await Promise.all(databases.map((db) => db.destroy()));
  });
});
