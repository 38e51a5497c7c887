// The hostile suite's raw client: it must report what the server answered, including the answer a server
// sends before closing on a client still sending 10 MB (what Fastify does with a body over its limit).
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerComplete,
  headerOf,
  parseAnswer,
  rawExchange,
  requestHead,
} from "../src/hostile/raw-http-exchange.ts";

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (Number(request.headers["content-length"] ?? 0) > 16 * 1024 || request.headers["transfer-encoding"]) {
      // As Fastify answers a body over bodyLimit: at once, without reading it, and the connection closed.
      response.writeHead(413, { connection: "close", "content-type": "text/plain" });
      response.end("too large");
      return;
    }
    request.resume();
    request.on("end", () => response.writeHead(202, { location: "/v1/payments/pay_1" }).end("{}"));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server.close();
});

describe("answer framing", () => {
  it("is whole by Content-Length, by the last chunk, or at a 101's head", () => {
    expect(answerComplete(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi"))).toBe(true);
    expect(answerComplete(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nhi"))).toBe(false);
    expect(
      answerComplete(
        Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"),
      ),
    ).toBe(true);
    expect(
      answerComplete(Buffer.from("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n")),
    ).toBe(true);
  });

  it("reads the status, the head and a header", () => {
    const answer = parseAnswer(Buffer.from("HTTP/1.1 202 Accepted\r\nLocation: /v1/x\r\n\r\n{}"));
    expect(answer.status).toBe(202);
    expect(headerOf(answer.head, "location")).toBe("/v1/x");
    expect(answer.body).toBe("{}");
  });

  it("sends header bytes as given (control characters included)", () => {
    const head = requestHead("GET", "/", [["X-Bad", "a\u0001\u0000b"]]);
    expect([...head.subarray(head.indexOf("a\u0001"), head.indexOf("a\u0001") + 4)]).toEqual([
      0x61, 1, 0, 0x62,
    ]);
  });
});

describe("rawExchange", () => {
  it("returns a whole answer with its status", async () => {
    const body = Buffer.from('{"amount":1}');
    const answer = await rawExchange({
      host: "127.0.0.1",
      port,
      head: requestHead("POST", "/", [
        ["Host", "127.0.0.1"],
        ["Content-Length", String(body.length)],
      ]),
      body: [body],
      timeoutMs: 5000,
    });
    expect(answer).toMatchObject({ status: 202, error: null });
  });

  it("reads the 413 a server sends at once to a client about to send 10 MB", async () => {
    const part = Buffer.alloc(64 * 1024, "x");
    const parts = function* () {
      for (let i = 0; i < 160; i++) yield part;
    };
    const send = () =>
      rawExchange({
        host: "127.0.0.1",
        port,
        head: requestHead("POST", "/", [
          ["Host", "127.0.0.1"],
          ["Content-Length", String(160 * part.length)],
        ]),
        body: parts(),
        timeoutMs: 10_000,
      });
    expect((await send()).status).toBe(413);
    // Several at once: the server closes each with its body unread (a reset), and a client still writing may
    // lose the answer to it. Each one ends, with the 413 or the reset: none is left hanging.
    const answers = await Promise.all(Array.from({ length: 5 }, send));
    for (const answer of answers) {
      expect(answer.status === 413 || ["EPIPE", "ECONNRESET"].includes(answer.error ?? "")).toBe(true);
    }
  });

  it("reports a server that never answers as a timeout, not a status", async () => {
    const answer = await rawExchange({ host: "127.0.0.1", port, head: "GET / HTTP/1.1\r\n", timeoutMs: 300 });
    expect(answer).toMatchObject({ status: null, error: "timeout" });
  });
});
