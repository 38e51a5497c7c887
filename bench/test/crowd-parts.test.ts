// The crowd spread over client processes (--crowd-processes): who watches which shopper, the merge of what
// the parts saw, and a real two-process crowd against a small HTTP server that plays the room and the payments
// route (the bench's client side is under test here, not Floodgate).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseOpenFilesLimit } from "@floodgate/config";
import { afterEach, describe, expect, it } from "vitest";
import { CrowdPartProcess } from "../src/flash-sale/crowd-part-process.ts";
import {
  addSocketCounts,
  crowdFilesProblem,
  latestLoop,
  partOfShopper,
  type SocketCounts,
  shoppersOfPart,
  tokenTableIdentity,
} from "../src/flash-sale/crowd-parts.ts";
import { Crowd } from "../src/flash-sale/flash-sale-crowd.ts";
import { NO_IDENTITY } from "../src/harness/bench-identity.ts";
import { KeepAliveClient } from "../src/harness/keep-alive-client.ts";

const counts = (n: number): SocketCounts => ({
  opened: n,
  failed: n,
  closedEarly: n,
  open: n,
  peakOpen: n,
  withPosition: n,
  soldOutFirst: n,
});

describe("the crowd's parts", () => {
  it("gives every shopper to exactly one part", () => {
    for (const users of [1, 2, 7, 100, 100_001]) {
      for (const parts of [1, 2, 3, 8]) {
        let total = 0;
        for (let index = 0; index < parts; index++) total += shoppersOfPart(users, { index, count: parts });
        expect(total).toBe(users);
      }
    }
    expect([0, 1, 2, 3, 4].map((i) => partOfShopper(i, 2))).toEqual([0, 1, 0, 1, 0]);
    expect(shoppersOfPart(1, { index: 1, count: 2 })).toBe(0);
  });

  it("sums socket counts and takes the latest loop measure by measure", () => {
    const into = counts(1);
    addSocketCounts(into, counts(2));
    expect(into).toEqual(counts(3));
    expect(
      latestLoop([
        { p50: 1, p99: 90, max: 100 },
        { p50: 3, p99: 20, max: 400 },
      ]),
    ).toEqual({ p50: 3, p99: 90, max: 400 });
  });

  it("refuses a crowd whose bench process would run out of open files, and names the way out", () => {
    const mix = { websockets: 20_000, connections: 200, crowdProcesses: 1 };
    expect(crowdFilesProblem(mix, 20_000)).toMatch(
      /needs about 21100 open files .* over this process's limit of 20000 \(ulimit -n\): give --crowd-processes 2 or more/,
    );
    expect(crowdFilesProblem({ ...mix, crowdProcesses: 2 }, 20_000)).toBeNull();
    expect(crowdFilesProblem(mix, null)).toBeNull();
    expect(crowdFilesProblem({ ...mix, crowdProcesses: 8 }, 1024)).toMatch(
      /raise the limit, or give fewer --websockets/,
    );
  });

  it("reads the soft limit of open files from /proc's limits", () => {
    const limits = [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max open files            20000                1048576              files     ",
    ].join("\n");
    expect(parseOpenFilesLimit(limits)).toBe(20_000);
    expect(
      parseOpenFilesLimit("Max open files            unlimited            unlimited            files"),
    ).toBeNull();
    expect(parseOpenFilesLimit("")).toBeNull();
  });

  it("acts only for the shoppers whose tokens it holds, never as the shop's server", async () => {
    const identity = tokenTableIdentity({ "bench-user-1": "t1" });
    expect(identity.shopperHeaders("bench-user-1")).toEqual({ authorization: "Bearer t1" });
    expect(identity.shopperToken("bench-user-1")).toBe("t1");
    expect(() => identity.shopperToken("bench-user-2")).toThrow(/no customer token for bench-user-2/);
    expect(() => identity.serverHeaders()).toThrow(/never as the shop's server/);
    await expect(identity.addShoppers(["bench-user-3"])).rejects.toThrow(/mints none/);
  });
});

/** The room admits every joiner at once; a payment is accepted once per Idempotency-Key. */
function startShop(): Promise<{ server: Server; baseUrl: string; payments: Map<string, string> }> {
  const payments = new Map<string, string>();
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { userId?: string };
      const reply = (status: number, json: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(json));
      };
      if (request.method === "POST" && request.url === "/v1/rooms/flash/tickets") {
        reply(201, {
          ticketId: `t-${body.userId}`,
          status: "admitted",
          admissionToken: `admit-${body.userId}`,
          expiresAt: new Date(Date.now() + 600_000).toISOString(),
        });
      } else if (request.method === "POST" && request.url === "/v1/payments") {
        const key = String(request.headers["idempotency-key"]);
        if (request.headers["admission-token"] !== `admit-${body.userId}`) return reply(403, {});
        if (!payments.has(key)) payments.set(key, `pay-${body.userId}`);
        reply(202, { id: payments.get(key), status: "pending" });
      } else {
        reply(404, {});
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        server,
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        payments,
      }),
    ),
  );
}

describe("a crowd over two processes", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it("joins from part 0, pays from the part that owns each shopper, and gathers what every part saw", async () => {
    const shop = await startShop();
    cleanups.push(() => shop.server.close());
    const users = 40;
    const common = {
      baseUrl: shop.baseUrl,
      roomId: "flash",
      users,
      websockets: 0,
      connections: 4,
      pollIntervalMs: 1000,
      sessionMs: 600_000,
      keyPrefix: "crowd-parts-test",
    };
    const other = new CrowdPartProcess({
      ...common,
      part: { index: 1, count: 2 },
      tokens: null,
      productId: null,
    });
    cleanups.push(() => other.close());
    const pollClient = new KeepAliveClient(shop.baseUrl, 4);
    const payClient = new KeepAliveClient(shop.baseUrl, 4);
    cleanups.push(() => {
      pollClient.close();
      payClient.close();
    });
    const crowd = new Crowd({
      ...common,
      joinRate: 200,
      slices: 1,
      identity: NO_IDENTITY,
      pollClient,
      payClient,
      part: { index: 0, count: 2 },
      otherParts: [other],
    });

    const joins = await crowd.join();
    expect(joins.statusCounts).toEqual({ "201": users });
    await crowd.settled;
    // Part 1's shoppers paid from its process: this crowd's copies of them saw nothing until gathered.
    const odd = crowd.shoppers.filter((_, i) => i % 2 === 1);
    const even = crowd.shoppers.filter((_, i) => i % 2 === 0);
    expect(odd.every((shopper) => shopper.paymentStatus === null)).toBe(true);
    expect(even.every((shopper) => shopper.paymentStatus === 202)).toBe(true);

    await crowd.gather();
    expect(crowd.shoppers.map((shopper) => shopper.paymentId)).toEqual(
      crowd.shoppers.map((shopper) => `pay-${shopper.userId}`),
    );
    expect(odd.every((shopper) => shopper.joinStatus === 201 && shopper.paymentAttempts === 1)).toBe(true);
    expect(crowd.otherLoops).toHaveLength(1);
    // Each shopper paid once, with its own key.
    expect(shop.payments.size).toBe(users);
  });

  it("fails the sale's joins and wait, without an unhandled rejection, when a part cannot start", async () => {
    const other = new CrowdPartProcess({
      // No URL: the part's HTTP clients cannot be made, and its start fails.
      baseUrl: "not a url",
      roomId: "flash",
      users: 4,
      websockets: 0,
      connections: 1,
      pollIntervalMs: 1000,
      sessionMs: 600_000,
      keyPrefix: "crowd-parts-test-failed",
      part: { index: 1, count: 2 },
      tokens: null,
      productId: null,
    });
    cleanups.push(() => other.close());
    const client = new KeepAliveClient("http://127.0.0.1:9", 1);
    cleanups.push(() => client.close());
    const crowd = new Crowd({
      baseUrl: "http://127.0.0.1:9",
      roomId: "flash",
      users: 4,
      websockets: 0,
      joinRate: 10,
      connections: 1,
      slices: 1,
      pollIntervalMs: 1000,
      sessionMs: 600_000,
      keyPrefix: "crowd-parts-test-failed",
      identity: NO_IDENTITY,
      pollClient: client,
      payClient: client,
      part: { index: 0, count: 2 },
      otherParts: [other],
    });
    await expect(other.ready).rejects.toThrow(/crowd part 1 failed: .*Invalid URL/);
    // Nobody awaited the crowd's wait while the part failed: vitest fails the file on an unhandled rejection,
    // which Node reports once the tick's microtasks are done, so one turn of the event loop shows it.
    await new Promise((resolve) => setImmediate(resolve));
    await expect(crowd.join()).rejects.toThrow(/crowd part 1 failed/);
    await expect(crowd.settled).rejects.toThrow(/crowd part 1 failed/);
    await expect(other.report()).rejects.toThrow(/crowd part 1 failed/);
  });
});
