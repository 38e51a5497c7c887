// Shared by the intake's test files: what a test needs to look at the real Redis behind an app, and to assert
// the problem+json shape. Each test file still builds its own environment and app. Every answer of get and
// post is also held against the app's OpenAPI document, so a route test that drifts from it fails.
import { createServer } from "node:net";
import { scanKeys, serverKeyFor } from "@floodgate/test-fixtures";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { readinessKey } from "../../src/health/readiness-checks.ts";
import { expectAnswerDocumented } from "./openapi-contract.ts";

/**
 * The shop's server key of the app's test environment, unless the test names its own Authorization; an
 * empty one sends none (the unauthenticated case).
 */
export function withCredentials(
  app: FastifyInstance,
  headers: Record<string, string> = {},
): Record<string, string> {
  if (!("authorization" in headers))
    return { ...headers, authorization: `Bearer ${serverKeyFor(app.config)}` };
  if (headers.authorization !== "") return headers;
  const { authorization: _none, ...rest } = headers;
  return rest;
}

/** Every answer these helpers return has been held against the app's OpenAPI document (openapi-contract.ts). */
export async function documentedInject(app: FastifyInstance, options: InjectOptions) {
  // A string URL, so the answer can be matched to its operation (and to UNDOCUMENTED_ANSWERS).
  if (typeof options.url !== "string") throw new Error("documentedInject needs options.url as a string");
  const response = await app.inject(options);
  await expectAnswerDocumented(app, options.method ?? "GET", options.url, response);
  return response;
}

export const post = (
  app: FastifyInstance,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  documentedInject(app, {
    method: "POST",
    url,
    headers: withCredentials(app, headers),
    payload: body as object,
  });

export const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}) =>
  documentedInject(app, { method: "GET", url, headers: withCredentials(app, headers) });

/** Entries per partition stream (a missing stream counts 0). */
export async function streamLengths(app: FastifyInstance): Promise<number[]> {
  return Promise.all(app.queueKeys.allStreams().map((stream) => app.redis.xlen(stream)));
}

export async function totalStreamLength(app: FastifyInstance): Promise<number> {
  return (await streamLengths(app)).reduce((sum, n) => sum + n, 0);
}

/**
 * Every key under the app's prefix that a request can write, sorted (SCAN of every master, so it stays correct
 * however many there are, on one Redis or a cluster). The admission leader's lease, its epoch and the backlog
 * signal are left out: the leader writes them on its own timer, and the signal first appears a moment after
 * start, so a "nothing changed" snapshot taken across that moment differed for no reason of the request under
 * test (seen as a rare failure of the first refusal case).
 * The readiness probe's key is left out for the same reason.
 */
export async function prefixKeys(app: FastifyInstance): Promise<string[]> {
  const leaderKeys = new Set([
    app.admission.keys.leaderLease(),
    app.admission.keys.leaderEpoch(),
    app.admission.keys.backlogSignal(),
    readinessKey(app.config.redisPrefix),
  ]);
  const keys = await scanKeys(app.redis, `${app.config.redisPrefix}*`, { count: 50_000 });
  return keys.filter((key) => !leaderKeys.has(key)).sort();
}

/** The stream entry that carries an operation, with its partition, or undefined. */
export async function findStreamEntry(app: FastifyInstance, operationId: string) {
  const partition = app.queueKeys.partitionForOperation(operationId);
  if (partition === null) return undefined;
  const entries = await app.redis.xrange(app.queueKeys.stream(partition), "-", "+");
  for (const [entryId, fields] of entries) {
    const record: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
    if (record.id === operationId) return { partition, entryId, fields: record };
  }
  return undefined;
}

export function statusKey(app: FastifyInstance, operationId: string): string {
  const partition = app.queueKeys.partitionForOperation(operationId);
  if (partition === null) throw new Error(`malformed id ${operationId}`);
  return app.queueKeys.status(partition, operationId);
}

/** RFC 9457 problem+json with our extensions; `field` is checked when given. */
export function expectProblem(
  response: LightMyRequestResponse,
  status: number,
  code: string,
  field?: string,
): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = response.json();
  expect(body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String) });
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  if (field !== undefined) {
    expect(body.field).toBe(field);
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }
  return body;
}

/** A local port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until `check` returns a value that passes `done`; throws with the last value when it gives up. */
export async function waitUntil<T>(
  check: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  attempts = 200,
): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await check();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

/**
 * Resolves once a reservation list (an item's, on a Redis Cluster) is empty: a two-step request's reservation is
 * struck off after its answer, by a ZREM sent in a later turn of the event loop (reservation-strike-offs.ts), so
 * a command count read as the answers arrive may come before it. Read on the stats connection, which the
 * command count leaves out. On one Redis no list is written and this returns at once.
 */
export async function reservationsStruckOff(app: FastifyInstance, listKey: string): Promise<void> {
  await waitUntil(
    () => app.statsRedis.zcard(listKey),
    (left) => left === 0,
    `the reservations of ${listKey} struck off`,
  );
}

/** Value of an unlabelled series (or the sum of a labelled one) in Prometheus text. */
export function metricValue(text: string, name: string, labels?: Record<string, string>): number {
  let sum = 0;
  let found = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (labels) {
      const present = match[2] ?? "";
      if (!Object.entries(labels).every(([k, v]) => present.includes(`${k}="${v}"`))) continue;
    }
    sum += Number(match[3]);
    found = true;
  }
  if (!found) throw new Error(`metric ${name} not found`);
  return sum;
}
