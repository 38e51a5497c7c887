// The admission_signing_keys rows in the global database: the ES256 keys every intake signs admission tokens
// with. The first key is inserted if absent by `migrate` and by every intake at start, with the same primary key
// (generation 1), so whichever lands first is the one all of them read. `./floodgate keys rotate` adds the next
// generation; intakes read the rows at start and again every little while (never per request).
import { createHash, generateKeyPairSync, type JsonWebKey } from "node:crypto";
import type { GlobalDatabase } from "@floodgate/db";
import { type Kysely, sql } from "kysely";

/**
 * How long a key stays published (and verifying) after the next one started signing: the longest admission
 * session a room may give (sessionSeconds' maximum, room-schemas.ts), so its last token has expired by then.
 */
export const ADMISSION_KEY_PUBLISHED_SECONDS = 86_400;

export interface AdmissionKeyRow {
  generation: number;
  kid: string;
  privateJwk: JsonWebKey;
  /** Epoch ms. */
  signsFrom: number;
  supersededAt: number | null;
}

/** A new P-256 key: its private JWK and its kid (the RFC 7638 thumbprint of its public part). */
export function generateAdmissionSigningKey(): { kid: string; privateJwk: JsonWebKey } {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = privateKey.export({ format: "jwk" });
  // RFC 7638: the required members only, in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  const kid = createHash("sha256").update(canonical).digest("base64url");
  return { kid, privateJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d } };
}

/** Inserts the first key unless there is one; true when this call made it. */
export async function ensureAdmissionSigningKey(db: Kysely<GlobalDatabase>): Promise<boolean> {
  const { kid, privateJwk } = generateAdmissionSigningKey();
  const inserted = await db
    .insertInto("admission_signing_keys")
    .values({ generation: 1, kid, private_jwk: privateJwk as Record<string, string> })
    .onConflict((conflict) => conflict.column("generation").doNothing())
    .returning("generation")
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Adds the next key, signing `leadSeconds` from now (the database's clock): long enough for every intake to
 * read it and every shop's cached JWKS to expire first. The key signing until then is marked superseded at that
 * moment, and is published for ADMISSION_KEY_PUBLISHED_SECONDS more.
 */
export async function rotateAdmissionSigningKey(
  db: Kysely<GlobalDatabase>,
  leadSeconds: number,
): Promise<{ kid: string; generation: number; signsFrom: Date }> {
  const { kid, privateJwk } = generateAdmissionSigningKey();
  return db.transaction().execute(async (tx) => {
    // One rotation at a time: the table's lock orders them, so each supersedes the one before.
    await sql`lock table admission_signing_keys in share row exclusive mode`.execute(tx);
    const latest = await tx
      .selectFrom("admission_signing_keys")
      .select((eb) => eb.fn.max("generation").as("generation"))
      .executeTakeFirst();
    const generation = (latest?.generation ?? 0) + 1;
    const row = await tx
      .insertInto("admission_signing_keys")
      .values({
        generation,
        kid,
        private_jwk: privateJwk as Record<string, string>,
        signs_from: sql<Date>`now() + make_interval(secs => ${leadSeconds})`,
      })
      .returning("signs_from")
      .executeTakeFirstOrThrow();
    await tx
      .updateTable("admission_signing_keys")
      .set({ superseded_at: row.signs_from })
      .where("generation", "<", generation)
      .where("superseded_at", "is", null)
      .execute();
    return { kid, generation, signsFrom: row.signs_from };
  });
}

/** The keys still published: each not yet superseded, or superseded less than a session's maximum ago. */
export async function readAdmissionSigningKeys(db: Kysely<GlobalDatabase>): Promise<AdmissionKeyRow[]> {
  const rows = await db
    .selectFrom("admission_signing_keys")
    .select(["generation", "kid", "private_jwk", "signs_from", "superseded_at"])
    .where((eb) =>
      eb.or([
        eb("superseded_at", "is", null),
        eb(
          "superseded_at",
          ">",
          sql<Date>`now() - make_interval(secs => ${ADMISSION_KEY_PUBLISHED_SECONDS})`,
        ),
      ]),
    )
    .orderBy("generation", "desc")
    .execute();
  return rows.map((row) => ({
    generation: row.generation,
    kid: row.kid,
    privateJwk: row.private_jwk as JsonWebKey,
    signsFrom: row.signs_from.getTime(),
    supersededAt: row.superseded_at?.getTime() ?? null,
  }));
}
