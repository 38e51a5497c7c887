// migrateAll against the real Postgres: the global database first, then the shards at once. A shard that
// cannot be migrated is named in the error, and the shards beside it are migrated all the same.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createKysely } from "../src/create-database.ts";
import { dropDatabases, ensureDatabases } from "../src/ensure-databases.ts";
import { migrateAll } from "../src/migrate.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const id = `migrateall_${randomBytes(3).toString("hex")}`;
const database = (name: string) => {
  const url = new URL(SERVER);
  url.pathname = `/fgt_${id}_${name}`;
  return url.toString();
};
const global = database("g");
const shards = [database("s0"), database("s1"), database("s2")];
const created = [global, ...shards];

afterAll(async () => {
  await dropDatabases(created);
});

const migrationsOn = async (url: string) => {
  const db = createKysely<unknown>(url, { max: 1 });
  try {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db);
    return rows[0]!.n;
  } finally {
    await db.destroy();
  }
};

describe("migrateAll", () => {
  it("migrates the global database and every shard, logging the shards in order", async () => {
    await ensureDatabases(created);
    const lines: string[] = [];
    await migrateAll(global, shards, (line) => lines.push(line));
    expect(lines.map((line) => line.split(":")[0])).toEqual(["global", "shard 0", "shard 1", "shard 2"]);
    expect(lines.every((line) => line.includes("applied "))).toBe(true);
    const again: string[] = [];
    await migrateAll(global, shards, (line) => again.push(line));
    expect(again).toEqual([
      "global: up to date",
      "shard 0: up to date",
      "shard 1: up to date",
      "shard 2: up to date",
    ]);
  });

  it("names a shard it cannot migrate, after migrating the shards beside it", async () => {
    const fresh = [database("f0"), database("missing"), database("f2")];
    created.push(fresh[0]!, fresh[2]!);
    await ensureDatabases([fresh[0]!, fresh[2]!]); // the middle shard's database does not exist
    const lines: string[] = [];
    await expect(migrateAll(global, fresh, (line) => lines.push(line))).rejects.toThrow(/shard 1 \(/);
    expect(lines.map((line) => line.split(":")[0])).toEqual(["global", "shard 0", "shard 2"]);
    expect(await migrationsOn(fresh[0]!)).toBeGreaterThan(0);
    expect(await migrationsOn(fresh[2]!)).toBe(await migrationsOn(fresh[0]!));
  });
});
