// The events feed never skips an event committed late. Two real transactions on one shard hold their events
// out of order: the one that took the lower position (and the lower xid) commits last. A feed keyed on the
// position alone would hand out the higher one, move its cursor past the lower, and never list it; this
// one hands out neither while the older transaction may still commit, then both, each once.
import { webhookEventId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asShop, documentedInject, type IntakeApp, startIntake } from "./support/intake-client.ts";

let env: TestEnvironment;
let app: IntakeApp;
const clients: pg.Client[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("events-feed-late-commit", { shards: 2 });
  app = await startIntake(env.config);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.end().catch(() => {})));
  await app?.close();
  await env?.cleanup();
});

async function connect(shard: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: env.config.shardUrls[shard]! });
  await client.connect();
  clients.push(client);
  return client;
}

async function transactionOn(shard: number): Promise<pg.Client> {
  const client = await connect(shard);
  await client.query("begin");
  return client;
}

/** What a worker's batch writes: one event, in its transaction. */
async function recordEvent(
  client: pg.Client,
  operationId: string,
): Promise<{ id: string; position: string }> {
  const id = webhookEventId(operationId, "deposit.succeeded");
  const { rows } = await client.query<{ position: string }>(
    `insert into events (event_id, event_type, operation_id, data)
     values ($1, 'deposit.succeeded', $2, jsonb_build_object('id', $2::text)) returning position::text`,
    [id, operationId],
  );
  return { id, position: rows[0]!.position };
}

async function page(after = ""): Promise<{ ids: string[]; nextCursor: string }> {
  const response = await documentedInject(app, {
    method: "GET",
    url: `/v1/events${after ? `?after=${after}` : ""}`,
    headers: asShop(app),
  });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  return { ids: body.data.map((e: { id: string }) => e.id), nextCursor: body.nextCursor };
}

/**
 * Reads on from `after` until `want` events came (the horizon is the Postgres server's oldest writing
 * transaction, which another test's may hold back for a moment): every id read, in order, repeats included.
 */
async function readUntil(after: string, want: number): Promise<{ ids: string[]; nextCursor: string }> {
  const ids: string[] = [];
  let cursor = after;
  for (let tries = 0; ids.length < want; tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 25));
    if (tries > 2000) throw new Error(`read ${ids.length} of ${want} events: ${ids.join(", ")}`);
    const next = await page(cursor);
    ids.push(...next.ids);
    cursor = next.nextCursor;
  }
  return { ids, nextCursor: cursor };
}

describe("an event committed late on one shard", () => {
  it("is not passed over by a cursor: neither is listed until both are committed, then each once", async () => {
    const early = await transactionOn(0); // will commit last
    const late = await transactionOn(0);
    // `early` takes its xid first, then `late` its position first: their positions are out of order with
    // their xids, and early's event commits last whichever it is keyed on.
    await early.query("select pg_current_xact_id()");
    await late.query("select pg_current_xact_id()");
    const b = await recordEvent(late, "dep_late_commit_b");
    const a = await recordEvent(early, "dep_late_commit_a");
    expect(BigInt(b.position)).toBeLessThan(BigInt(a.position));
    await late.query("commit");

    // b is committed and visible to any reader, yet not handed out: `early` may still commit an event
    // (it does: a) that a cursor past b would never list.
    const reader = await connect(0);
    const seen = await reader.query("select event_id from events");
    expect(seen.rows.map((r) => r.event_id)).toEqual([b.id]);
    const first = await page();
    expect(first.ids).toEqual([]);

    await early.query("commit");
    const rest = await readUntil(first.nextCursor, 2);
    expect(rest.ids).toEqual([a.id, b.id]); // early's transaction first: it began writing first
    expect((await page(rest.nextCursor)).ids).toEqual([]);
  });

  it("commits first with the lower position, the other after: listed once each, in that order", async () => {
    const start = await readUntil("", 2); // past the first test's two events
    const slow = await transactionOn(1);
    const fast = await transactionOn(1);
    const c = await recordEvent(fast, "dep_late_commit_c");
    const d = await recordEvent(slow, "dep_late_commit_d");
    expect(BigInt(c.position)).toBeLessThan(BigInt(d.position));
    await fast.query("commit");
    const mid = await readUntil(start.nextCursor, 1);
    expect(mid.ids).toEqual([c.id]);
    await slow.query("commit");
    const after = await readUntil(mid.nextCursor, 1);
    expect(after.ids).toEqual([d.id]);
  });
});
