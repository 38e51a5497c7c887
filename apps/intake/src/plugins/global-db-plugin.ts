import type { Config } from "@floodgate/config";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Kysely } from "kysely";
import { markPoolErrors } from "../errors/store-errors.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** Coupon definitions: written by admin routes, read once per coupon per process (then cached). */
    globalDb: Kysely<GlobalDatabase>;
  }
}

export const globalDbPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  const db = createKysely<GlobalDatabase>(config.databaseUrl, {
    max: 2,
    applicationName: "floodgate-intake-global",
    timeouts: config.postgresTimeouts,
    decoratePool: (pool) => markPoolErrors(pool, "global database"),
  });
  app.decorate("globalDb", db);
  app.addHook("onClose", async () => {
    await db.destroy();
  });
});
