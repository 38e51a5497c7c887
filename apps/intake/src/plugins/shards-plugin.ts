import type { Config } from "@floodgate/config";
import {
  checkShardIdentities,
  createKysely,
  readDeploymentId,
  type ShardDatabase,
  shardIdentityCheck,
} from "@floodgate/db";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Kysely } from "kysely";
import { markPoolErrors } from "../errors/store-errors.ts";

export interface Shards {
  map: ShardMap;
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
  const map = ShardMap.contiguous(config.shardUrls.length);
  const databases = config.shardUrls.map((url, i) =>
    createKysely<ShardDatabase>(url, {
      max: 4,
      applicationName: `floodgate-intake-shard-${i}`,
      timeouts: config.postgresTimeouts,
      onNewConnection: shardIdentityCheck(url, i, deploymentId, refused),
      decoratePool: (pool) => markPoolErrors(pool, `shard ${i} database`),
    }),
  );
  const forBucket = (bucket: number) => databases[map.shardForBucket(bucket)]!;
  app.decorate("shards", {
    map,
    databases,
    forBucket,
    forUser: (userId: string) => forBucket(bucketForUser(userId)),
  });
  app.addHook("onClose", async () => {
    await Promise.all(databases.map((db) => db.destroy()));
  });
});
