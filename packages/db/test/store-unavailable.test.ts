// Failures typed by what they are, against the real server: the store's (a missing database, a statement or
// query timeout) become StoreUnavailableError, the statement's own (a syntax error) stay what they are; a
// client whose query timed out is not reused (its statement may still run, its transaction stay open).
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createKysely } from "../src/create-database.ts";
import { StoreUnavailableError, storeUnavailable } from "../src/store-unavailable-error.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("Postgres failures through createKysely", () => {
  it("types a missing database (3D000) as the store's", async () => {
    const url = new URL(SERVER);
    url.pathname = "/fgt_no_such_database_0";
    const db = createKysely(url.toString(), { max: 1 });
    try {
      const error = await failureOf(sql`select 1`.execute(db));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).reason).toBe("3D000");
    } finally {
      await db.destroy();
    }
  });

  it("types a statement timeout (57014) as the store's, and a syntax error as the statement's", async () => {
    const db = createKysely(SERVER, { max: 1, timeouts: { statementMs: 100, queryMs: 5000 } });
    try {
      const slow = await failureOf(sql`select pg_sleep(1)`.execute(db));
      expect(slow).toBeInstanceOf(StoreUnavailableError);
      expect((slow as StoreUnavailableError).reason).toBe("57014");
      const own = await failureOf(sql`selec 1`.execute(db));
      expect(own).not.toBeInstanceOf(StoreUnavailableError);
      expect((own as { code?: string }).code).toBe("42601");
    } finally {
      await db.destroy();
    }
  });

  it("types a query timeout as the store's and never reuses the client it hung on", async () => {
    const db = createKysely(SERVER, { max: 1, timeouts: { statementMs: 5000, queryMs: 200 } });
    try {
      const pid = async () =>
        (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
      const before = await pid();
      const error = await failureOf(
        db.transaction().execute(async (trx) => {
          await sql`select pg_sleep(1)`.execute(trx);
        }),
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(await pid()).not.toBe(before);
    } finally {
      await db.destroy();
    }
  });
});

describe("storeUnavailable", () => {
  const replyError = (message: string) => Object.assign(new Error(message), { name: "ReplyError" });

  it("knows the store's codes and node's socket errors, and nothing else", () => {
    for (const code of ["08006", "25006", "28P01", "3D000", "53300", "57P01", "57P03", "40001", "40P01"]) {
      expect(storeUnavailable(Object.assign(new Error("x"), { code }), "postgres")?.reason).toBe(code);
    }
    for (const code of ["23505", "22003", "42601", "23514"]) {
      expect(storeUnavailable(Object.assign(new Error("x"), { code }), "postgres")).toBeUndefined();
    }
    expect(storeUnavailable(Object.assign(new Error("x"), { code: "ECONNRESET" }), "postgres")?.reason).toBe(
      "ECONNRESET",
    );
    expect(storeUnavailable(new TypeError("a bug"), "postgres")).toBeUndefined();
  });

  it("reads Redis' error code, and takes any other client failure for the connection's", () => {
    expect(
      storeUnavailable(replyError("READONLY You can't write against a read only replica."), "redis"),
    ).toBeInstanceOf(StoreUnavailableError);
    expect(
      storeUnavailable(replyError("LOADING Redis is loading the dataset in memory"), "redis")?.reason,
    ).toBe("LOADING");
    expect(storeUnavailable(replyError("ERR wrong number of arguments"), "redis")).toBeUndefined();
    expect(storeUnavailable(new Error("Connection is closed."), "redis")).toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
