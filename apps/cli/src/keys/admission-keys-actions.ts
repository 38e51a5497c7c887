// What `./floodgate keys` does to the global database's admission signing keys (the rows themselves are
// @floodgate/auth's admission-key-store.ts).
import {
  ADMISSION_KEY_PUBLISHED_SECONDS,
  readAdmissionSigningKeys,
  rotateAdmissionSigningKey,
} from "@floodgate/auth";
import { createKysely, type GlobalDatabase } from "@floodgate/db";

async function withGlobalDb<T>(url: string, use: (db: ReturnType<typeof open>) => Promise<T>): Promise<T> {
  const db = open(url);
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}
const open = (url: string) =>
  createKysely<GlobalDatabase>(url, { max: 1, applicationName: "floodgate-keys" });

export async function rotateKeys(databaseUrl: string, leadSeconds: number): Promise<string[]> {
  return withGlobalDb(databaseUrl, async (db) => {
    const rotated = await rotateAdmissionSigningKey(db, leadSeconds);
    return [
      `added key ${rotated.kid} (generation ${rotated.generation}): published now, signs from ${rotated.signsFrom.toISOString()}`,
      `the key it replaces keeps verifying, and stays in the JWKS until ${ADMISSION_KEY_PUBLISHED_SECONDS / 3600} h after that (its last tokens have expired by then)`,
    ];
  });
}

export async function listKeys(databaseUrl: string, now = Date.now()): Promise<string[]> {
  return withGlobalDb(databaseUrl, async (db) => {
    const keys = await readAdmissionSigningKeys(db);
    if (keys.length === 0) return ["no admission signing key yet: `./floodgate migrate` makes the first"];
    const signing = keys.filter((key) => key.signsFrom <= now).sort((a, b) => b.signsFrom - a.signsFrom)[0];
    return keys.map((key) => {
      const state =
        key === signing ? "signing" : key.signsFrom > now ? "published, signs later" : "verifying only";
      const from = new Date(key.signsFrom).toISOString();
      return `${key.kid}  generation ${key.generation}  signs from ${from}  ${state}`;
    });
  });
}
