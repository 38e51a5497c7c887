// The hostile suite's bookkeeping: what counts as a 5xx, what fails the verdict, the close code read after a
// refused upgrade's 101, and that every fuzzed field really carries its hostile value.
import { describe, expect, it } from "vitest";
import { closeCodeOf } from "../src/hostile/bad-upgrade-probe.ts";
import { fuzzRequests } from "../src/hostile/field-fuzz-probe.ts";
import { FD_TOLERANCE, verdict } from "../src/hostile/hostile-input-suite.ts";
import type { HostileTarget } from "../src/hostile/hostile-target.ts";
import { ProbeTally, SHED_STATUS } from "../src/hostile/probe-tally.ts";
import type { RawAnswer } from "../src/hostile/raw-http-exchange.ts";

const answer = (status: number | null, head = "", error: string | null = null): RawAnswer => ({
  status,
  head: `HTTP/1.1 ${status} X${head}`,
  body: "",
  raw: Buffer.alloc(0),
  ms: 1,
  error,
});

describe("ProbeTally", () => {
  it("counts statuses, 5xx, connections without an answer and socket failures", () => {
    const tally = new ProbeTally("p");
    tally.add(answer(400), "a");
    tally.add(answer(503), "b");
    tally.add(answer(null, "", "ECONNRESET"), "c");
    tally.count("101 close 4401", null, "d");
    tally.serverFailure("e: close 1011");
    const result = tally.result();
    expect(result.statusCounts).toEqual({ "400": 1, "503": 1, none: 1, "101 close 4401": 1 });
    expect(result.fiveXx).toBe(2);
    expect(result.connectionErrors).toBe(1);
    expect(result.notes.join("\n")).toMatch(/b: 503/);
  });

  it("counts load shedding's 503 busy with Retry-After apart, never as a 5xx; any other 503 stays one", () => {
    const tally = new ProbeTally("p");
    const busy = JSON.stringify({ type: "/problems/busy", status: 503, code: "busy", retryable: true });
    tally.add({ ...answer(503, "\r\nRetry-After: 1"), body: busy }, "shed");
    tally.add({ ...answer(503), body: busy }, "no retry-after");
    tally.add(
      { ...answer(503, "\r\nRetry-After: 1"), body: JSON.stringify({ code: "shard_unavailable" }) },
      "shard",
    );
    tally.add({ ...answer(503, "\r\nRetry-After: 1"), body: "<html>busy</html>" }, "not json");
    const result = tally.result();
    expect(result.statusCounts).toEqual({ [SHED_STATUS]: 1, "503": 3 });
    expect(result.fiveXx).toBe(3);
    expect(result.notes.join("\n")).toMatch(/shed: 503 busy \(shed\)/);
  });

  it("keeps each 202 with its Location and credential for the audit", () => {
    const tally = new ProbeTally("p");
    tally.add(answer(202, "\r\nLocation: /v1/payments/pay_1"), "a", "Bearer k");
    expect(tally.accepted).toEqual([
      { probe: "p", location: "/v1/payments/pay_1", authorization: "Bearer k" },
    ]);
  });
});

describe("verdict", () => {
  const census = (pid: number, fds: number, orphanedSockets = 0) => ({
    pid,
    fds,
    clientSockets: orphanedSockets,
    orphanedSockets,
  });
  const clean = {
    name: "p",
    requests: 1,
    statusCounts: { "400": 1 },
    fiveXx: 0,
    connectionErrors: 0,
    notes: [],
  };

  it("passes with no 5xx, crash or lost request and fds back within the tolerance", () => {
    expect(verdict([clean], [], 0, { 1: census(1, 30) }, { 1: census(1, 30 + FD_TOLERANCE) })).toEqual([]);
  });

  it("fails on a 5xx, a crash, a lost request, a socket held for a gone client or fds over the tolerance", () => {
    const failures = verdict(
      [{ ...clean, fiveXx: 2 }],
      [{ pid: 2, what: "gone" }],
      1,
      { 1: census(1, 30), 3: census(3, 30) },
      { 1: census(1, 30, 1), 3: census(3, 31 + FD_TOLERANCE) },
    );
    expect(failures).toHaveLength(5);
  });
});

describe("closeCodeOf", () => {
  it("reads the close frame after a 101 and its messages", () => {
    const head = Buffer.from("HTTP/1.1 101 Switching Protocols\r\n\r\n");
    const text = Buffer.from([0x81, 0x02, 0x7b, 0x7d]);
    const close = Buffer.from([0x88, 0x02, 0x11, 0x31]); // 4401
    expect(closeCodeOf(Buffer.concat([head, text, close]))).toBe(4401);
    expect(closeCodeOf(Buffer.concat([head, text]))).toBeNull();
  });
});

describe("fuzzRequests", () => {
  const target: HostileTarget = {
    host: "127.0.0.1",
    port: 1,
    baseUrl: "http://127.0.0.1:1",
    serverAuthorization: "Bearer s",
    adminAuthorization: "Bearer a",
    customerAuthorization: "Bearer c",
    customerToken: "c",
    userId: "u",
    productId: "prd_00000000000000000000000000",
    couponId: "cpn_00000000000000000000000000",
    operationId: "pay_00000000000000000000000000",
  };

  it("puts the hostile value in place of the placeholder, escaped or raw", () => {
    const requests = fuzzRequests(target);
    expect(requests.length).toBeGreaterThan(300);
    const placeholder = JSON.stringify("\u0000hostile\u0000").slice(1, -1);
    for (const request of requests) expect(request.body?.toString("utf8") ?? "").not.toContain(placeholder);
    const raw = requests.find((r) => r.label === "POST /v1/payments userId (raw): NUL inside");
    expect(raw?.body?.toString("utf8")).toContain('"userId":"ab\u0000cd"');
    const escaped = requests.find((r) => r.label === "POST /v1/payments userId (escaped): NUL inside");
    expect(escaped?.body?.toString("utf8")).toContain('"userId":"ab\\u0000cd"');
  });
});
