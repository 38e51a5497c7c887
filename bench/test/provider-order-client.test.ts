import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_PROVIDER, chargePlan, ProviderOrderClient } from "../src/faults/provider-order-client.ts";
import { knownTokens } from "./test-identity.ts";

// A real HTTP server on a free port, answering as the intake would: an order's 202 with its amount, a charge's
// 202 with an id per Idempotency-Key (a retry gets the same id), and each key's first attempt refused with 503.
interface Seen {
  path: string;
  key: string;
  authorization: string;
  body: Record<string, unknown>;
}
let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
const idByKey = new Map<string, string>();
const refusedOnce = new Set<string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const key = String(req.headers["idempotency-key"]);
      seen.push({
        path: req.url ?? "",
        key,
        authorization: String(req.headers.authorization),
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
      });
      if (!refusedOnce.has(key)) {
        refusedOnce.add(key);
        res.writeHead(503, { "retry-after": "0", "content-type": "application/json" });
        res.end("{}");
        return;
      }
      if (!idByKey.has(key)) idByKey.set(key, `op_${idByKey.size}`);
      const id = idByKey.get(key)!;
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/v1/orders" ? { id, status: "pending", amount: 100 } : { id }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("ProviderOrderClient", () => {
  it("orders, then reports each planned charge under its own key, retried with the same key and body", async () => {
    const client = new ProviderOrderClient({
      baseUrl,
      identity: knownTokens,
      users: 5,
      productId: "prd_test",
      referencePrefix: "pp-test",
    });
    client.pace(50);
    // Twenty orders hold one of each planned charge (chargePlan's cycle).
    while (client.counts.orders < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.stop();

    const orders = client.counts.orders;
    expect(orders).toBeGreaterThanOrEqual(20);
    expect(client.counts.ordersAccepted).toBe(orders);
    expect(client.orderIds).toHaveLength(orders);
    const plans = Array.from({ length: orders }, (_, n) => chargePlan(n));
    const expectedCharges = plans.reduce(
      (sum, plan) =>
        sum +
        (plan === "unpaid" ? 0 : plan === "same-reference-twice" || plan === "second-reference" ? 2 : 1),
      0,
    );
    expect(client.keys).toHaveLength(expectedCharges);
    expect(client.keys.every((key) => key.accepted && key.ids.length === 1)).toBe(true);

    // Every key was sent twice (refused, then accepted), with the same body both times.
    const byKey = new Map<string, Seen[]>();
    for (const request of seen) byKey.set(request.key, [...(byKey.get(request.key) ?? []), request]);
    for (const requests of byKey.values()) {
      expect(requests).toHaveLength(2);
      expect(requests[1]!.body).toEqual(requests[0]!.body);
    }

    const charges = seen.filter((request) => request.path.endsWith("/provider-payments"));
    expect(charges.every((request) => request.authorization === "Bearer fg_sk_test")).toBe(true);
    expect(charges.every((request) => request.body.provider === BENCH_PROVIDER)).toBe(true);
    const orderRequests = seen.filter((request) => request.path === "/v1/orders");
    expect(orderRequests[0]!.body).toMatchObject({ items: [{ productId: "prd_test", quantity: 1 }] });
    expect(orderRequests[0]!.authorization).toBe(`Bearer token-of-${orderRequests[0]!.body.userId}`);
    // One wrong amount per twenty orders, and one reference reported under two keys.
    expect(charges.some((request) => request.body.amount === 101)).toBe(true);
    const references = client.keys.map((key) => key.reference);
    expect(new Set(references).size).toBe(
      references.length - plans.filter((p) => p === "same-reference-twice").length,
    );
  });
});
