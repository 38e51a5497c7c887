// The burst generator against a small node:http server on a free port, answering as Fastify does (JSON with
// Content-Length): what it counts, what it keeps, and that it stays open loop.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BurstThread } from "../src/faults/burst-thread.ts";
import { type BurstOptions, OverloadBurst } from "../src/faults/overload-burst.ts";

type Mode = "accept" | "slow" | "refuse" | "hang" | "close" | "store-unavailable";
let mode: Mode = "accept";
let issued = 0;
const issuedIds: string[] = [];
const keys = new Set<string>();
const bodies: string[] = [];
const held: ServerResponse[] = [];

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

function handle(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  req.on("data", (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on("end", () => {
    keys.add(String(req.headers["idempotency-key"]));
    if (bodies.length < 10) bodies.push(`${req.headers.authorization} ${body}`);
    if (mode === "hang") {
      held.push(res);
      return;
    }
    if (mode === "refuse") {
      reply(res, 503, '{"code":"overloaded","retryable":true}', { "retry-after": "1" });
      return;
    }
    if (mode === "store-unavailable") {
      reply(res, 503, '{"type":"/problems/service-unavailable","code":"service_unavailable"}', {
        "retry-after": "1",
      });
      return;
    }
    const id = `pay_${String(issued++).padStart(26, "0")}`;
    issuedIds.push(id);
    const answer = () =>
      reply(
        res,
        202,
        JSON.stringify({ id, status: "pending" }),
        mode === "close" ? { connection: "close" } : {},
      );
    if (mode === "slow") setTimeout(answer, 300);
    else answer();
  });
}

let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = (overrides: Partial<BurstOptions> = {}): BurstOptions => ({
  host: "127.0.0.1",
  port,
  users: [
    { userId: "burst-user-0", token: "tok0" },
    { userId: "burst-user-1", token: "tok1" },
    { userId: "burst-user-2", token: null },
  ],
  keyPrefix: `t${Math.random().toString(36).slice(2)}`,
  amount: 2,
  connections: 4,
  maxUnanswered: 256,
  timeoutMs: 10_000,
  tickMs: 10,
  ...overrides,
});

describe("OverloadBurst", () => {
  it("sends each arrival once with its own key and keeps the id of every 2xx", async () => {
    mode = "accept";
    const before = issuedIds.length;
    keys.clear();
    const burst = new OverloadBurst(options());
    const report = await burst.run(500, 1);
    burst.close();
    expect(report.counts).toMatchObject({ arrivals: 500, sent: 500, notSent: 0, answered: 500, timeouts: 0 });
    expect(report.counts.statuses).toEqual({ 202: 500 });
    expect(keys.size).toBe(500);
    const ids = Array.from({ length: burst.ids.length }, (_, i) => burst.ids.at(i));
    expect(new Set(ids)).toEqual(new Set(issuedIds.slice(before)));
    expect(bodies).toContain('Bearer tok0 {"userId":"burst-user-0","amount":2}');
    expect(bodies).toContain('undefined {"userId":"burst-user-2","amount":2}');
    expect(report.cpu.wallMs).toBeGreaterThan(0);
    expect(report.perSecond.sent.reduce((a, b) => a + b, 0)).toBe(500);
  }, 60_000);

  it("keeps its pace open loop when the server answers slowly", async () => {
    mode = "slow";
    const burst = new OverloadBurst(options({ connections: 2 }));
    const report = await burst.run(400, 1);
    burst.close();
    // Closed loop, 2 connections waiting 300 ms per answer would send about 7; open loop sends what is due.
    expect(report.counts).toMatchObject({ sent: 400, notSent: 0, answered: 400, timeouts: 0 });
  }, 60_000);

  it("counts arrivals beyond a connection's unanswered cap as not sent, and unanswered ones as timeouts", async () => {
    mode = "hang";
    const burst = new OverloadBurst(options({ connections: 2, maxUnanswered: 5, timeoutMs: 1500 }));
    const report = await burst.run(100, 1);
    burst.close();
    expect(report.counts).toMatchObject({ arrivals: 100, sent: 10, notSent: 90, answered: 0, timeouts: 10 });
  }, 60_000);

  it("counts refusals with Retry-After", async () => {
    mode = "refuse";
    const burst = new OverloadBurst(options());
    const report = await burst.run(200, 1);
    burst.close();
    expect(report.counts).toMatchObject({ answered: 200, refusals: 200, refusalsWithRetryAfter: 200 });
    expect(report.counts.firstBodies).toEqual({ 503: '{"code":"overloaded","retryable":true}' });
    expect(report.counts.storeUnavailable).toBe(0);
    expect(burst.ids.length).toBe(0);
  }, 60_000);

  it("counts 503 service_unavailable apart: the request may have been stored (outcome unknown)", async () => {
    mode = "store-unavailable";
    const burst = new OverloadBurst(options());
    const report = await burst.run(100, 1);
    burst.close();
    expect(report.counts).toMatchObject({ answered: 100, refusals: 100, storeUnavailable: 100 });
  }, 60_000);

  it("accounts for every request when the server closes each connection after one answer", async () => {
    mode = "close";
    const burst = new OverloadBurst(options({ connections: 2 }));
    const report = await burst.run(200, 1);
    burst.close();
    const c = report.counts;
    expect(c.answered).toBeGreaterThan(0);
    expect(c.answered + c.socketErrors + c.timeouts).toBe(c.sent);
    expect(c.sent + c.notSent).toBe(200);
    expect(c.connectionsOpened).toBeGreaterThan(2);
    expect(burst.ids.length).toBe(c.statuses[202]);
  }, 60_000);
});

describe("BurstThread", () => {
  it("runs steps on a thread and hands back the 2xx ids", async () => {
    mode = "accept";
    const before = issuedIds.length;
    const thread = new BurstThread(options());
    const first = await thread.run(300, 1);
    const second = await thread.run(200, 1);
    const ids = await thread.finish();
    expect(first.counts.statuses).toEqual({ 202: 300 });
    expect(second.counts.statuses).toEqual({ 202: 200 });
    expect(ids.length).toBe(500);
    expect(new Set(Array.from({ length: ids.length }, (_, i) => ids.at(i)))).toEqual(
      new Set(issuedIds.slice(before)),
    );
  }, 60_000);
});
