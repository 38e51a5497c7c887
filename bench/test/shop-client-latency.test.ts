import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ShopClient } from "../src/faults/shop-client.ts";
import { knownTokens } from "./test-identity.ts";

// A real HTTP server on a free port: every payment accepted, every fifth answer refused with 503 first.
let server: Server;
let baseUrl: string;
let answered = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      answered++;
      if (answered % 5 === 0) {
        res.writeHead(503, { "retry-after": "0", "content-type": "application/json" });
        res.end("{}");
        return;
      }
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: `op_${answered}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("ShopClient per-second response times", () => {
  it("has p50 and p99 for each second with answers (any status), and none for a second without", async () => {
    const client = new ShopClient({
      baseUrl,
      identity: knownTokens,
      users: 10,
      keyPrefix: "latency-test",
      firstSeq: 1,
      connections: 4,
    });
    client.pace(50);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await client.stop();
    // Which second the answers fall in depends on the machine: any second with answers has both figures.
    const timed = client.bins.map((_, second) => client.latencyAt(second)).filter((l) => l.p50Ms !== null);
    expect(timed.length).toBeGreaterThan(0);
    for (const { p50Ms, p99Ms } of timed) expect(p99Ms!).toBeGreaterThanOrEqual(p50Ms!);
    expect(client.latencyAt(client.bins.length + 5)).toEqual({ p50Ms: null, p99Ms: null });
    expect(client.bins.reduce((sum, bin) => sum + bin.fiveXx, 0)).toBeGreaterThan(0);
  });
});
