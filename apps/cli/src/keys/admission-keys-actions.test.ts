// The admission signing keys in a real global database: the first key agreed on by concurrent inserts, a
// rotation superseding the key before it, and a superseded key published until its last token expired.
import {
  ADMISSION_KEY_PUBLISHED_SECONDS,
  ensureAdmissionSigningKey,
  readAdmissionSigningKeys,
} from "@floodgate/auth";
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listKeys, rotateKeys } from "./admission-keys-actions.ts";

let env: TestEnvironment;
let db: Kysely<GlobalDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("admission-keys");
  db = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 4 });
});

afterAll(async () => {
  await db?.destroy();
  await env?.cleanup();
});

describe("admission signing keys", () => {
  it("make one first key when several processes insert it at once", async () => {
    const made = await Promise.all(Array.from({ length: 4 }, () => ensureAdmissionSigningKey(db)));
    expect(made.filter(Boolean)).toHaveLength(1);
    const keys = await readAdmissionSigningKeys(db);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ generation: 1, supersededAt: null });
    expect(keys[0]!.privateJwk).toMatchObject({ kty: "EC", crv: "P-256", d: expect.any(String) });
    expect(await ensureAdmissionSigningKey(db)).toBe(false);
  });

  it("rotate: the new key signs after its lead, the old one is superseded then and listed as verifying", async () => {
    const [first] = await readAdmissionSigningKeys(db);
    const lines = await rotateKeys(env.config.databaseUrl, 600);
    expect(lines[0]).toMatch(/^added key \S+ \(generation 2\): published now, signs from /);
    const keys = await readAdmissionSigningKeys(db);
    expect(keys.map((key) => key.generation)).toEqual([2, 1]);
    const [second, old] = keys as [(typeof keys)[0], (typeof keys)[0]];
    expect(second.signsFrom - Date.now()).toBeGreaterThan(590_000);
    expect(old.supersededAt).toBe(second.signsFrom);
    expect(old.kid).toBe(first!.kid);
    const listed = await listKeys(env.config.databaseUrl);
    expect(listed).toEqual([
      expect.stringMatching(new RegExp(`^${second.kid}  generation 2 .* published, signs later$`)),
      expect.stringMatching(new RegExp(`^${old.kid}  generation 1 .* signing$`)),
    ]);
    const later = await listKeys(env.config.databaseUrl, second.signsFrom);
    expect(later[0]).toMatch(/ signing$/);
    expect(later[1]).toMatch(/ verifying only$/);
  });

  it("stop publishing a key once it has been superseded for longer than the longest session", async () => {
    await sql`update admission_signing_keys set superseded_at = now() - make_interval(secs => ${ADMISSION_KEY_PUBLISHED_SECONDS + 1}) where generation = 1`.execute(
      db,
    );
    expect((await readAdmissionSigningKeys(db)).map((key) => key.generation)).toEqual([2]);
  });
});
