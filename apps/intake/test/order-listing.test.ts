// GET /v1/orders against the real intake, a worker process, Redis and four Postgres shards: newest first by
// (createdAt, id), a cursor that walks every shard without repeating or skipping an order, while orders are
// placed and applied between and during the pages; the filters, who may list what, and refused parameters.
// Orders are placed through POST /v1/orders and applied by the worker; the ties, the microseconds and the
// copy of a bucket being moved are written on the shards directly, as they can be found there.
import { createPool } from "@floodgate/db";
import { newOperationId, parseOperationId } from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, adminHeaders } from "./support/coupon-test-kit.ts";
import { expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

const SHARDS = 4;
let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess;
let shardPools: ReturnType<typeof createPool>[];
let productId: string;
/** Every order this file put on the shards, whichever way. */
const everyOrder = new Set<string>();

const shardOf = (userId: string) => ShardMap.contiguous(SHARDS).shardForBucket(bucketForUser(userId));
/** An order's id carries its user's bucket. */
const shardOfOrder = (id: string) => ShardMap.contiguous(SHARDS).shardForBucket(parseOperationId(id)!.bucket);
/** Users spread over every shard (`count` of them, round robin over the shards). */
function usersOnEveryShard(prefix: string, count: number): string[] {
  const byShard: string[][] = Array.from({ length: SHARDS }, () => []);
  for (let i = 0; byShard.some((users) => users.length < Math.ceil(count / SHARDS)); i++) {
    const user = `${prefix}-${i}`;
    byShard[shardOf(user)]!.push(user);
  }
  return Array.from({ length: count }, (_, i) => byShard[i % SHARDS]![Math.floor(i / SHARDS)]!);
}

beforeAll(async () => {
  env = await createTestEnvironment("order-listing", { shards: SHARDS, env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  shardPools = env.config.shardUrls.map((url) =>
    createPool(url, { max: 1, applicationName: "order-listing" }),
  );
  worker = await startWorkerProcess(env.config);
  ({ id: productId } = await createProduct(app, { stock: 10_000, price: 1_000, maxUnitsPerUser: 100 }));
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await Promise.all((shardPools ?? []).map((pool) => pool.end()));
  await env?.cleanup();
});

async function placeOrder(userId: string, quantity = 1): Promise<string> {
  const placed = await post(app, "/v1/orders", { userId, items: [{ productId, quantity }] });
  expect(placed.statusCode, placed.body).toBe(202);
  const { id } = placed.json();
  everyOrder.add(id);
  return id;
}

const applied = async (id: string) => (await readStatusRecord(app.redis, app.queueKeys, id))?.status;

/** Resolves once the worker committed every one of `ids` on its shard (it writes the status after the commit). */
async function persisted(ids: string[]): Promise<void> {
  await waitUntil(
    async () => (await Promise.all(ids.map(applied))).filter((status) => status !== "succeeded").length,
    (left) => left === 0,
    `${ids.length} orders applied`,
    600,
  );
}

interface Page {
  data: { id: string; userId: string; status: string; createdAt: string }[];
  nextCursor: string | null;
}

async function page(query: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await get(app, `/v1/orders?${query}`, headers);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Every page of a listing, each one's ids; `between` runs before each page after the first. */
async function walk(
  query: string,
  limit: number,
  options: { headers?: Record<string, string>; between?: () => Promise<void> } = {},
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    if (pages.length > 0) await options.between?.();
    const params = [query, `limit=${limit}`, cursor === null ? "" : `after=${cursor}`];
    const answer = await page(params.filter(Boolean).join("&"), options.headers);
    expect(answer.data.length, "a page is never longer than its limit").toBeLessThanOrEqual(limit);
    if (answer.nextCursor !== null) expect(answer.data.length, "only the last page is short").toBe(limit);
    pages.push(answer.data.map((order) => order.id));
    cursor = answer.nextCursor;
  } while (cursor !== null);
  return pages;
}

/** Newest first: later acceptance time first, then the larger id (ids carry the time: it is their order). */
const newestFirst = (ids: Iterable<string>) =>
  [...ids].sort((a, b) => {
    const time = parseOperationId(b)!.createdAtMs - parseOperationId(a)!.createdAtMs;
    return time !== 0 ? time : a < b ? 1 : a > b ? -1 : 0;
  });

describe("listing every order", () => {
  it("gives every order once, newest first across the four shards, at any page size", async () => {
    const users = usersOnEveryShard("everyone", 12);
    // Placed three at a time, so some share a millisecond (their ids decide) and the shards interleave.
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 3) {
      ids.push(...(await Promise.all([0, 1, 2].map((j) => placeOrder(users[(i + j) % users.length]!)))));
    }
    await persisted(ids);
    expect(new Set(ids.map(shardOfOrder)).size).toBe(SHARDS);

    const expected = newestFirst(everyOrder);
    for (const limit of [1, 7, 30, 100]) {
      const pages = await walk("", limit);
      expect(pages.flat(), `limit ${limit}`).toEqual(expected);
      expect(pages, `limit ${limit}`).toHaveLength(Math.max(1, Math.ceil(expected.length / limit)));
    }

    // The listing's view of an order is GET /v1/orders/:orderId's.
    const first = await page("limit=1");
    const [listed] = first.data;
    expect(listed).toEqual((await get(app, `/v1/orders/${listed!.id}`)).json());
    expect(listed).toMatchObject({
      status: "awaiting_payment",
      amount: 1_000,
      items: [{ productId, quantity: 1 }],
    });
    // limit defaults to 20.
    expect((await page("")).data).toHaveLength(20);
  });
});

describe("paging while orders are placed and applied", () => {
  it("lists no order twice and skips none that was on the shards when the first page was read", async () => {
    const users = usersOnEveryShard("paging", 16);
    const before = await Promise.all(users.flatMap((user) => [placeOrder(user), placeOrder(user)]));
    await persisted(before);
    const onShardsAtStart = new Set(everyOrder);

    // Orders keep arriving during the whole walk, on every shard: placed, applied by the worker, listed or not.
    const arriving: { id: string; placedAfterFirstPage: boolean }[] = [];
    let firstPageAnswered = false;
    let placing = true;
    const placer = (async () => {
      for (let i = 0; placing; i++) {
        const startedAfterFirstPage = firstPageAnswered;
        const id = await placeOrder(users[i % users.length]!);
        arriving.push({ id, placedAfterFirstPage: startedAfterFirstPage });
      }
    })();

    let appliedSoFar = 0;
    const pages = await walk("", 5, {
      // Between two pages, at least one more order is committed on a shard: the pages are read around commits
      // (and the placer runs on during the reads too).
      between: async () => {
        firstPageAnswered = true;
        const seen = appliedSoFar;
        appliedSoFar = await waitUntil(
          async () =>
            (await Promise.all(arriving.map((o) => applied(o.id)))).filter((s) => s === "succeeded").length,
          (count) => count > seen,
          "another order applied between two pages",
          600,
        );
      },
    });
    placing = false;
    await placer;

    const listed = pages.flat();
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(onShardsAtStart.size / 5));
    expect(appliedSoFar, "orders were applied during the walk").toBeGreaterThan(0);
    // Never twice.
    expect(new Set(listed).size).toBe(listed.length);
    // None skipped of those on the shards before the first page.
    const missing = [...onShardsAtStart].filter((id) => !listed.includes(id));
    expect(missing).toEqual([]);
    // Newest first throughout, pages included; nothing listed that this file did not place.
    expect(listed).toEqual(newestFirst(listed));
    for (const id of listed) expect(everyOrder.has(id), id).toBe(true);
    // An order placed after the first page was answered is newer than everything on it: the walk, going to
    // older orders, never reaches it (a new walk lists it first).
    const late = arriving.filter((o) => o.placedAfterFirstPage).map((o) => o.id);
    expect(late.length).toBeGreaterThan(0);
    expect(listed.filter((id) => late.includes(id))).toEqual([]);
    await persisted(arriving.map((o) => o.id));
    expect((await walk("", 100)).flat()).toEqual(newestFirst(everyOrder));
  });
});

describe("filters", () => {
  it("lists one user's orders from the user's shard, and by status", async () => {
    const [alice, bob] = usersOnEveryShard("filtered", 2);
    const alices = [await placeOrder(alice!), await placeOrder(alice!), await placeOrder(alice!)];
    const bobs = [await placeOrder(bob!)];
    await persisted([...alices, ...bobs]);
    const cancel = await post(app, `/v1/orders/${alices[1]}/cancel`, {});
    expect(cancel.statusCode, cancel.body).toBe(202);
    await waitUntil(
      async () => (await get(app, `/v1/orders/${alices[1]}`)).json().status,
      (status) => status === "cancelled",
      "the cancel applied",
      600,
    );

    expect((await walk(`userId=${alice}`, 2)).flat()).toEqual(newestFirst(alices));
    expect((await page(`userId=${bob}`)).data.map((o) => o.userId)).toEqual([bob]);
    expect((await walk(`userId=${alice}&status=cancelled`, 2)).flat()).toEqual([alices[1]]);
    expect((await walk(`userId=${alice}&status=awaiting_payment`, 1)).flat()).toEqual(
      newestFirst([alices[0]!, alices[2]!]),
    );
    // Without a user: every shard, by status.
    const cancelled = (await walk("status=cancelled", 3)).flat();
    expect(cancelled).toEqual([alices[1]]);
    expect((await page("status=paid")).data).toEqual([]);
    expect((await page("status=paid")).nextCursor).toBeNull();
    expect((await page("userId=nobody-at-all")).data).toEqual([]);
  });
});

describe("who may list", () => {
  it("a customer token lists its own orders only; another userId is forbidden_user; the admin key may not", async () => {
    const [carol, dave] = usersOnEveryShard("callers", 2);
    const carols = [await placeOrder(carol!), await placeOrder(carol!)];
    const daves = [await placeOrder(dave!)];
    await persisted([...carols, ...daves]);
    const token = (await app.auth.customerTokens.mint(carol!, 900)).token;
    const asCarol = { authorization: `Bearer ${token}` };

    expect((await walk("", 1, { headers: asCarol })).flat()).toEqual(newestFirst(carols));
    expect((await walk(`userId=${carol}`, 5, { headers: asCarol })).flat()).toEqual(newestFirst(carols));
    expectProblem(await get(app, `/v1/orders?userId=${dave}`, asCarol), 403, "forbidden_user", "userId");
    expectProblem(await get(app, "/v1/orders", adminHeaders()), 403, "forbidden_caller", "Authorization");
    expectProblem(await get(app, "/v1/orders", { authorization: "" }), 401, "unauthorized");
  });
});

describe("refused query parameters", () => {
  const cursorOf = (text: string) => Buffer.from(text).toString("base64url");
  const realId = () => newOperationId("order", 5, Date.parse("2026-11-28T10:00:00.000Z"));
  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    ["limit=1.5", "limit"],
    ["limit=", "limit"],
    ["limit=1&limit=2", "limit"],
    ["status=pending", "status"],
    ["status=shipped", "status"],
    ["userId=a%20b", "userId"],
    ["user_id=alice", "user_id"],
    ["after=not%20a%20cursor", "after"],
    ["after=", "after"],
    ["after=bm90IG91cnM", "after"], // "not ours"
    [`after=${cursorOf(`2026-11-28T10:00:00.000000Z ord_${"0".repeat(26)}x`)}`, "after"],
    [`after=${cursorOf(`2026-02-30T10:00:00.000000Z ${realId()}`)}`, "after"],
    [`after=${cursorOf(`2026-11-28T10:00:00.000Z ${realId()}`)}`, "after"],
  ])("%s: 400 naming %s", async (query, field) => {
    expectProblem(await get(app, `/v1/orders?${query}`), 400, "validation_error", field);
  });

  it("reads a cursor in its one spelling only", async () => {
    const cursor = cursorOf(`2026-11-28T10:00:00.000000Z ${realId()}`);
    expect((await get(app, `/v1/orders?after=${cursor}`)).statusCode).toBe(200);
    // The same bytes, another spelling: the last character's unused bits set.
    const last = cursor.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelt = `${cursor.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`;
    expect(Buffer.from(respelt, "base64url")).toEqual(Buffer.from(cursor, "base64url"));
    expectProblem(await get(app, `/v1/orders?after=${respelt}`), 400, "validation_error", "after");
  });
});

describe("what the shards hold", () => {
  /** An order row and its line on shard `shard`, as a worker (or the bucket mover) writes them. */
  async function insertOrder(
    shard: number,
    id: string,
    userId: string,
    createdAt: string,
    status = "awaiting_payment",
  ) {
    await shardPools[shard]!.query(
      `insert into orders (id, user_id, status, amount, discount, currency, expires_at, created_at)
       values ($1, $2, $3, 1000, 0, $4, $5::timestamptz + interval '15 minutes', $5::timestamptz)`,
      [id, userId, status, env.config.currency, createdAt],
    );
    await shardPools[shard]!.query(
      "insert into order_items (order_id, line, product_id, quantity, unit_price) values ($1, 1, $2, 1, 1000)",
      [id, productId],
    );
    everyOrder.add(id);
  }

  it("orders of the same moment, to the microsecond, on different shards: each once, in order, whatever the page size", async () => {
    const users = usersOnEveryShard("tied", 8);
    const ms = Date.parse("2026-11-28T09:00:00.123Z");
    const rows = users.map((user) => ({ user, id: newOperationId("order", bucketForUser(user), ms) }));
    // Two of them a few microseconds later than the rest: same millisecond, same id prefix, but newer.
    const time = (i: number) =>
      i < 2 ? `2026-11-28T09:00:00.12300${i + 1}Z` : "2026-11-28T09:00:00.123000Z";
    for (const [i, row] of rows.entries()) await insertOrder(shardOf(row.user), row.id, row.user, time(i));

    const sameMs = rows
      .slice(2)
      .map((row) => row.id)
      .sort()
      .reverse();
    const expected = [rows[1]!.id, rows[0]!.id, ...sameMs];
    for (const limit of [1, 2, 3]) {
      const listed = (await walk("", limit)).flat();
      expect(new Set(listed).size, `limit ${limit}`).toBe(listed.length);
      expect(
        listed.filter((id) => rows.some((row) => row.id === id)),
        `limit ${limit}`,
      ).toEqual(expected);
    }
  });

  it("an order on two shards while its bucket moves is listed once, from the shard the map gives its bucket", async () => {
    const [user] = usersOnEveryShard("moving", 1);
    const id = await placeOrder(user!);
    await persisted([id]);
    // The mover's copy on another shard, not yet deleted from this one (and marked, to tell the two apart).
    const other = (shardOf(user!) + 1) % SHARDS;
    const { rows } = await shardPools[shardOf(user!)]!.query(
      "select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') as t from orders where id = $1",
      [id],
    );
    await insertOrder(other, id, user!, rows[0].t, "expired");

    const listed = (await walk("", 3)).flat();
    expect(listed.filter((listedId) => listedId === id)).toHaveLength(1);
    const found = (await page("status=expired")).data.filter((order) => order.id === id);
    expect(found).toEqual([]);
    expect((await page(`userId=${user}`)).data).toMatchObject([{ id, status: "awaiting_payment" }]);
  });
});
