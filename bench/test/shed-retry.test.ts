// A flash-sale shopper's request that the intake shed (503 busy) is sent again a second later with the same body
// and Idempotency-Key, as the checkout SDK does; other answers end it at once. Against a small node:http server
// that sheds the first requests it is told to.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendThroughShedding } from "../src/flash-sale/shed-retry.ts";
import { KeepAliveClient } from "../src/harness/keep-alive-client.ts";

let server: Server;
let client: KeepAliveClient;
let toShed = 0;
const seen: { key: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      seen.push({ key: req.headers["idempotency-key"] as string | undefined, body });
      const shed = toShed-- > 0;
      const answer = shed ? '{"code":"busy"}' : '{"id":"pay_1","status":"pending"}';
      res.writeHead(shed ? 503 : 202, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(answer)),
        ...(shed ? { "retry-after": "1" } : {}),
      });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new KeepAliveClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 2);
});

afterAll(async () => {
  client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("sendThroughShedding", () => {
  it("sends a shed payment again, same key and body, until it is taken", async () => {
    seen.length = 0;
    toShed = 2;
    const answer = await sendThroughShedding(
      client,
      "/v1/payments",
      { userId: "u1", amount: 100 },
      {
        "idempotency-key": "k-u1",
      },
    );
    expect(answer).toMatchObject({ status: 202, attempts: 3, body: '{"id":"pay_1","status":"pending"}' });
    expect(seen).toEqual(Array(3).fill({ key: "k-u1", body: '{"userId":"u1","amount":100}' }));
  });

  it("ends at the first answer that is not a 503", async () => {
    seen.length = 0;
    toShed = 0;
    expect(await sendThroughShedding(client, "/v1/payments", {}, {})).toMatchObject({
      status: 202,
      attempts: 1,
    });
    expect(seen).toHaveLength(1);
  });
});
