import type { Config } from "@floodgate/config";
import { createPool, type ShardDatabase } from "@floodgate/db";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Kysely, PostgresDialect } from "kysely";
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
  const map = ShardMap.contiguous(config.shardUrls.length);
  const databases = config.shardUrls.map((url, i) => {
    const pool = createPool(url, { max: 4, applicationName: `floodgate-intake-shard-${i}` });
    return new Kysely<ShardDatabase>({
      dialect: new PostgresDialect({ pool: markPoolErrors(pool, `shard ${i} database`) }),
    });
  });
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
