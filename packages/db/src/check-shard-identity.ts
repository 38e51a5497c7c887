// Each shard database records which shard of which deployment it is (written by migrateAll), and every process
// that opens SHARD_URLS checks it before use: a swapped pair of URLs would otherwise read and write each user's
// data on the wrong shard without a word (her wallet reads as empty, new deposits land beside it).
import type { Kysely } from "kysely";
import type pg from "pg";
import { createKysely } from "./create-database.ts";
import { redactUrl } from "./redact-url.ts";
import type { GlobalDatabase, ShardDatabase } from "./shard-tables.ts";

/** A database that is not the shard its place in SHARD_URLS says, or not yet migrated to know it. */
export class ShardIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShardIdentityError";
  }
}

export interface ShardIdentity {
  deploymentId: string;
  shard: number;
}

const UNDEFINED_TABLE = "42P01";
const isUndefinedTable = (error: unknown) => (error as { code?: unknown })?.code === UNDEFINED_TABLE;

export async function readDeploymentId(global: Kysely<GlobalDatabase>, databaseUrl: string): Promise<string> {
  const row = await global
    .selectFrom("deployment")
    .select("id")
    .executeTakeFirst()
    .catch((error: unknown) => {
      if (isUndefinedTable(error)) return undefined;
      throw error;
    });
  if (!row) {
    throw new ShardIdentityError(
      `DATABASE_URL ${redactUrl(databaseUrl)} records no deployment id: run ./floodgate migrate`,
    );
  }
  return row.id;
}

export async function readShardIdentity(shard: Kysely<ShardDatabase>): Promise<ShardIdentity | undefined> {
  const row = await shard
    .selectFrom("shard_identity")
    .select(["deployment_id", "shard"])
    .executeTakeFirst()
    .catch((error: unknown) => {
      if (isUndefinedTable(error)) return undefined;
      throw error;
    });
  return row && { deploymentId: row.deployment_id, shard: row.shard };
}

/** Writes the identity if the shard has none yet; an identity already there is left as it is (and checked). */
export async function recordShardIdentity(
  shard: Kysely<ShardDatabase>,
  identity: ShardIdentity,
): Promise<void> {
  await shard
    .insertInto("shard_identity")
    .values({ deployment_id: identity.deploymentId, shard: identity.shard })
    .onConflict((oc) => oc.column("one_row").doNothing())
    .execute();
}

/** Throws the one line that says why `url`, at `expected.shard` in SHARD_URLS, is refused; returns if it is that shard. */
export async function verifyShardIdentity(
  shard: Kysely<ShardDatabase>,
  url: string,
  expected: ShardIdentity,
): Promise<void> {
  const refusal = identityRefusal(url, expected, await readShardIdentity(shard));
  if (refusal) throw new ShardIdentityError(refusal);
}

/**
 * For a shard's pool (createKysely's onNewConnection): each new connection is checked to be `shard` of the
 * deployment `deploymentId()` names before its first statement, so a shard that was out of reach when the
 * process started is checked when it comes back. A refusal goes to `onRefused` (a worker ends there) and fails
 * the query; a database that cannot be read fails it as any lost connection does. One query per new
 * connection, none per batch.
 */
export function shardIdentityCheck(
  url: string,
  shard: number,
  deploymentId: () => Promise<string>,
  onRefused: (error: ShardIdentityError) => void,
): (client: pg.PoolClient) => Promise<void> {
  return async (client) => {
    try {
      const expected = { deploymentId: await deploymentId(), shard };
      const { rows } = await client
        .query<{ deployment_id: string; shard: number }>("select deployment_id, shard from shard_identity")
        .catch((error: unknown) => {
          if (isUndefinedTable(error)) return { rows: [] };
          throw error;
        });
      const recorded = rows[0] && { deploymentId: rows[0].deployment_id, shard: rows[0].shard };
      const refusal = identityRefusal(url, expected, recorded);
      if (refusal) throw new ShardIdentityError(refusal);
    } catch (error) {
      if (error instanceof ShardIdentityError) onRefused(error);
      throw error;
    }
  };
}

function identityRefusal(
  url: string,
  expected: ShardIdentity,
  recorded: ShardIdentity | undefined,
): string | undefined {
  const at = `SHARD_URLS[${expected.shard}] ${redactUrl(url)}`;
  if (!recorded) return `${at} records no shard identity: run ./floodgate migrate`;
  if (recorded.deploymentId !== expected.deploymentId) {
    return (
      `${at} is shard ${recorded.shard} of deployment ${recorded.deploymentId}, not of this deployment ` +
      `${expected.deploymentId}: it belongs to another deployment`
    );
  }
  if (recorded.shard !== expected.shard) {
    return (
      `${at} is shard ${recorded.shard} of deployment ${recorded.deploymentId}, not shard ${expected.shard}: ` +
      "SHARD_URLS is out of order"
    );
  }
  return undefined;
}

export interface CheckShardIdentitiesOptions {
  /** Indexes in SHARD_URLS to check; all when unset. */
  shards?: number[];
  /**
   * Return the shards that could not be reached (to be checked later) instead of failing. A worker or an intake
   * must be able to start while a shard is down; a wrong shard is refused all the same.
   */
  skipUnreachable?: boolean;
}

/**
 * Checks that every SHARD_URLS entry is the shard of this deployment its position says. Throws a
 * ShardIdentityError (the first refused URL, in SHARD_URLS order) or, unless `skipUnreachable`, the error of a
 * database it could not read; returns the indexes it could not reach.
 */
export async function checkShardIdentities(
  databaseUrl: string,
  shardUrls: string[],
  options: CheckShardIdentitiesOptions = {},
): Promise<number[]> {
  const indexes = options.shards ?? shardUrls.map((_, i) => i);
  const global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-identity" });
  let deploymentId: string;
  try {
    deploymentId = await readDeploymentId(global, databaseUrl);
  } catch (error) {
    if (error instanceof ShardIdentityError || !options.skipUnreachable) throw error;
    return indexes;
  } finally {
    await global.destroy();
  }
  const outcomes = await Promise.allSettled(
    indexes.map(async (shard) => {
      const url = shardUrls[shard]!;
      const db = createKysely<ShardDatabase>(url, { max: 1, applicationName: "floodgate-identity" });
      try {
        await verifyShardIdentity(db, url, { deploymentId, shard });
      } catch (error) {
        if (error instanceof ShardIdentityError) throw error;
        throw new Error(`SHARD_URLS[${shard}] ${redactUrl(url)}: ${(error as Error).message}`, {
          cause: error,
        });
      } finally {
        await db.destroy();
      }
    }),
  );
  const failures = outcomes.flatMap((outcome, i) =>
    outcome.status === "rejected" ? [{ shard: indexes[i]!, error: outcome.reason as Error }] : [],
  );
  const refused = failures.find(({ error }) => error instanceof ShardIdentityError);
  if (refused) throw refused.error;
  if (failures.length > 0 && !options.skipUnreachable) throw failures[0]!.error;
  return failures.map(({ shard }) => shard);
}
