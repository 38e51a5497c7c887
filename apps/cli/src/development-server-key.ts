// The server key `./floodgate start` gives a developer on a loopback address, so the quick start's curl lines
// work in one command. Kept in .data/ (never committed, mode 0600) and reused while it is still active, so a
// restart does not invalidate the key a developer pasted; a revoked or missing one is replaced.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { activeApiKeys, apiKeyId, apiKeyMatches, createApiKey } from "@floodgate/auth";
import { createKysely, type GlobalDatabase } from "@floodgate/db";

export const DEVELOPMENT_KEY_NAME = "development key (./floodgate start)";

export async function developmentServerKey(
  databaseUrl: string,
  file: string,
): Promise<{ key: string; created: boolean }> {
  const db = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-start" });
  try {
    const saved = (await readFile(file, "utf8").catch(() => "")).trim();
    const id = apiKeyId(saved);
    if (id !== null) {
      const active = (await activeApiKeys(db)).find((key) => key.id === id);
      if (active !== undefined && apiKeyMatches(saved, active.hash)) return { key: saved, created: false };
    }
    const { key } = await createApiKey(db, DEVELOPMENT_KEY_NAME);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    return { key, created: true };
  } finally {
    await db.destroy();
  }
}
