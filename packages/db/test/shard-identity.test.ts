// Shard identity against the real Postgres: migrateAll records each shard's place, and a swapped pair of URLs or
// a shard of another deployment is refused by migrateAll and by checkShardIdentities, naming both.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkShardIdentities, ShardIdentityError } from "../src/check-shard-identity.ts";
import { createKysely } from "../src/create-database.ts";
import { dropDatabases, ensureDatabases } from "../src/ensure-databases.ts";
import { migrateAll } from "../src/migrate.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const id = `identity_${randomBytes(3).toString("hex")}`;
const database = (name: string) => {
  const url = new URL(SERVER);
  url.pathname = `/fgt_${id}_${name}`;
  return url.toString();
};
const global = database("g");
const shards = [database("s0"), database("s1"), database("s2"), database("s3")];
const otherGlobal = database("other_g");
const otherShards = [database("other_s0")];
const created = [global, ...shards, otherGlobal, ...otherShards];
const swapped = [shards[0]!, shards[1]!, shards[3]!, shards[2]!];

const deploymentOf = async (url: string) => {
  const db = createKysely<unknown>(url, { max: 1 });
  try {
    const { rows } = await sql<{ id: string }>`select id::text from deployment`.execute(db);
    return rows[0]!.id;
  } finally {
    await db.destroy();
  }
};

beforeAll(async () => {
  await ensureDatabases(created);
  await migrateAll(global, shards);
  await migrateAll(otherGlobal, otherShards);
});

afterAll(async () => {
  await dropDatabases(created);
});

describe("shard identity", () => {
  it("passes the order the shards were migrated in, again and again", async () => {
    await expect(checkShardIdentities(global, shards)).resolves.toEqual([]);
    await expect(migrateAll(global, shards)).resolves.toBeUndefined();
  });

  it("refuses the 3rd and 4th URLs swapped, naming the shard each database is and the one it was given as", async () => {
    const deployment = await deploymentOf(global);
    const expected =
      `SHARD_URLS[2] ${shards[3]} is shard 3 of deployment ${deployment}, not shard 2: ` +
      "SHARD_URLS is out of order";
    const check = checkShardIdentities(global, swapped);
    await expect(check).rejects.toThrow(ShardIdentityError);
    await expect(check).rejects.toThrow(expected);
    await expect(migrateAll(global, swapped)).rejects.toThrow(expected);
    // The refusal wrote nothing: the right order still passes.
    await expect(checkShardIdentities(global, shards)).resolves.toEqual([]);
  });

  it("refuses a shard of another deployment, naming both deployments", async () => {
    const [ours, theirs] = [await deploymentOf(global), await deploymentOf(otherGlobal)];
    expect(theirs).not.toBe(ours);
    const mixed = [otherShards[0]!, ...shards.slice(1)];
    const expected =
      `SHARD_URLS[0] ${otherShards[0]} is shard 0 of deployment ${theirs}, not of this deployment ${ours}: ` +
      "it belongs to another deployment";
    await expect(checkShardIdentities(global, mixed)).rejects.toThrow(expected);
    await expect(migrateAll(global, mixed)).rejects.toThrow(expected);
  });

  it("reports a shard it cannot reach when asked to, and still refuses a wrong one beside it", async () => {
    const unreachable = new URL(shards[1]!);
    unreachable.pathname = `/fgt_${id}_missing`; // no such database: the shard cannot be read
    const withDown = [shards[0]!, unreachable.toString(), shards[2]!, shards[3]!];
    await expect(checkShardIdentities(global, withDown, { skipUnreachable: true })).resolves.toEqual([1]);
    await expect(checkShardIdentities(global, withDown)).rejects.toThrow(/^SHARD_URLS\[1\] /);
    const downAndSwapped = [shards[0]!, unreachable.toString(), shards[3]!, shards[2]!];
    await expect(checkShardIdentities(global, downAndSwapped, { skipUnreachable: true })).rejects.toThrow(
      /SHARD_URLS\[2\] .* is shard 3 /,
    );
  });

  it("redacts the password of a URL it names", async () => {
    const withPassword = new URL(shards[3]!);
    withPassword.password = "hunter2";
    const urls = [shards[0]!, shards[1]!, withPassword.toString(), shards[2]!];
    const refusal = checkShardIdentities(global, urls);
    await expect(refusal).rejects.toThrow(/SHARD_URLS\[2\] postgres:\/\/postgres:\*\*\*@/);
    await expect(refusal).rejects.not.toThrow(/hunter2/);
  });
});
