// The wrk Lua script of the saturation comparison, run by the real wrk for 2 s against a server in this file
// that records what arrives: every request is POST /v1/payments with a fresh Idempotency-Key, a JSON body naming
// one of the shoppers and, given a tokens file, that shopper's token; the report line counts what was answered.
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureWrk } from "../src/payments/saturation/wrk-binary.ts";
import { parseWrkReport, runWrk, WRK_SCRIPT, wrkArguments } from "../src/payments/saturation/wrk-run.ts";

const directory = mkdtempSync(path.join(tmpdir(), "wrk-test-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: { userId: string; amount: number };
}

/** Answers 202, or `refuse` for every 10th request, recording each one. */
async function recordingServer(refuse: number | null) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: JSON.parse(text),
      });
      response.statusCode = refuse !== null && seen.length % 10 === 0 ? refuse : 202;
      response.setHeader("content-type", "application/json");
      response.end('{"id":"x","status":"pending"}');
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

describe("wrk-payments.lua", () => {
  it("is handed its stage's key prefix, shoppers and tokens file after wrk's own arguments", () => {
    const args = wrkArguments({
      url: "http://127.0.0.1:1",
      connections: 100,
      durationS: 10,
      keyPrefix: "stage-1",
      users: 5000,
      tokensFile: null,
    });
    expect(args.slice(0, 6)).toEqual(["--threads", "1", "--connections", "100", "--duration", "10s"]);
    expect(args.slice(args.indexOf("--script") + 1)).toEqual([
      WRK_SCRIPT,
      "http://127.0.0.1:1",
      "--",
      "stage-1",
      "5000",
      "",
    ]);
    expect(readFileSync(WRK_SCRIPT, "utf8")).toContain("function request()");
  });

  it("reads the report line wrk prints after its own summary", () => {
    const report = parseWrkReport(
      'Requests/sec: 10.0\nwrk-result {"requests":3,"durationUs":1000000,"statuses":{"202":2,"503":1},"errors":{"connect":0,"read":0,"write":0,"timeout":0},"latencyUs":{"p50":900,"p90":1000,"p99":1200,"max":1500},"cpuS":0.010}\n',
    );
    expect(report).toMatchObject({ requests: 3, statuses: { "202": 2, "503": 1 }, latencyUs: { p99: 1200 } });
    expect(() => parseWrkReport("Requests/sec: 10.0\n")).toThrow("no wrk-result line");
  });

  it("sends fresh keys, shoppers' bodies and their tokens, and counts every status (real wrk, 2 s)", async () => {
    const wrk = ensureWrk(() => {});
    const tokensFile = path.join(directory, "tokens.txt");
    writeFileSync(tokensFile, `${Array.from({ length: 50 }, (_, i) => `token-of-${i}`).join("\n")}\n`);
    const server = await recordingServer(503);
    try {
      const report = await runWrk({
        wrk,
        url: server.url,
        connections: 4,
        durationS: 2,
        keyPrefix: "stage-7",
        users: 50,
        tokensFile,
      });
      expect(report.requests).toBeGreaterThan(10);
      expect(report.statuses["202"]).toBeGreaterThan(0);
      expect(report.statuses["503"]).toBeGreaterThan(0);
      // Requests still in flight when wrk stops reach the server but are not counted.
      expect(server.seen.length).toBeGreaterThanOrEqual(report.requests);
      const keys = new Set(server.seen.map((request) => request.headers["idempotency-key"]));
      expect(keys.size).toBe(server.seen.length);
      for (const request of server.seen.slice(0, 200)) {
        expect(request).toMatchObject({ method: "POST", url: "/v1/payments" });
        expect(request.headers["content-type"]).toBe("application/json");
        expect(request.headers["idempotency-key"]).toMatch(/^stage-7-1-\d+$/);
        const user = Number(/^bench-user-(\d+)$/.exec(request.body.userId)?.[1]);
        expect(user).toBeGreaterThanOrEqual(0);
        expect(user).toBeLessThan(50);
        expect(request.headers.authorization).toBe(`Bearer token-of-${user}`);
        expect(request.body.amount % 100).toBe(0);
      }
      expect(new Set(server.seen.map((request) => request.body.userId)).size).toBeGreaterThan(1);
    } finally {
      server.close();
    }
  });

  it("sends no Authorization header without a tokens file", async () => {
    const server = await recordingServer(null);
    try {
      const report = await runWrk({
        wrk: ensureWrk(() => {}),
        url: server.url,
        connections: 2,
        durationS: 1,
        keyPrefix: "plain",
        users: 5000,
        tokensFile: null,
      });
      expect(Object.keys(report.statuses)).toEqual(["202"]);
      expect(server.seen.every((request) => request.headers.authorization === undefined)).toBe(true);
    } finally {
      server.close();
    }
  });
});
