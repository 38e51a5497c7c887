// The api_keys rows in the global database: created and revoked by the admin routes, read whole by each
// intake process into its cache (never per request).
import type { GlobalDatabase } from "@floodgate/db";
import type { Kysely } from "kysely";
import { generateApiKey } from "./api-key.ts";

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface ActiveApiKey {
  id: string;
  hash: Buffer;
}

const toRecord = (row: { id: string; name: string; created_at: Date; revoked_at: Date | null }) => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** Stores the hash of a new key and returns the key (the only time it exists outside the caller). */
export async function createApiKey(
  db: Kysely<GlobalDatabase>,
  name: string,
): Promise<ApiKeyRecord & { key: string; hash: Buffer }> {
  const { id, key, hash } = generateApiKey();
  const row = await db
    .insertInto("api_keys")
    .values({ id, name, key_hash: hash })
    .returning(["id", "name", "created_at", "revoked_at"])
    .executeTakeFirstOrThrow();
  return { ...toRecord(row), key, hash };
}

export async function listApiKeys(db: Kysely<GlobalDatabase>): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select(["id", "name", "created_at", "revoked_at"])
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toRecord);
}

/** Revokes once; revoking again keeps the first revocation time. Undefined for an unknown id. */
export async function revokeApiKey(
  db: Kysely<GlobalDatabase>,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  await db
    .updateTable("api_keys")
    .set({ revoked_at: new Date() })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .execute();
  const row = await db
    .selectFrom("api_keys")
    .select(["id", "name", "created_at", "revoked_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function activeApiKeys(db: Kysely<GlobalDatabase>): Promise<ActiveApiKey[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select(["id", "key_hash"])
    .where("revoked_at", "is", null)
    .execute();
  return rows.map((row) => ({ id: row.id, hash: row.key_hash }));
}
