// Upgrades the router refuses (a bad percent-encoding, a parameter over the router's limit, an unknown path)
// get their 400/404 and their socket closed: left open, each one held a file descriptor in CLOSE-WAIT and
// app.close() waited on them. A malformed frame on an open socket is one warning for its connection, no stack.
// A plain GET (no upgrade) on a socket route is a documented 426 upgrade_required with Upgrade: websocket.
import { once } from "node:events";
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { newOperationId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { buildApp } from "../src/app.ts";
import { documentedInject, expectProblem, waitUntil } from "./support/intake-test-kit.ts";
import { type ContractDocument, expectDocumentedAnswer, servedDocument } from "./support/openapi-contract.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let port: number;
let document: ContractDocument;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("websocket-upgrades");
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await buildApp(env.config, { logger: { level: "warn", stream } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = (app.server.address() as { port: number }).port;
  document = await servedDocument(app);
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const openFds = async () => (await readdir("/proc/self/fd")).length;

/** Sends one upgrade request on a raw connection; resolves with the status line once the server closes it. */
async function badUpgrade(path: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk;
  });
  socket.on("error", () => {});
  const closed = once(socket, "close");
  await once(socket, "connect");
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
  );
  // The client hangs up once it has its answer, as a browser does; the server must close its side too.
  await waitUntil(
    async () => received,
    (text) => /\r\n\r\n[\s\S]*\}$/.test(text),
    `an answer to ${path.slice(0, 40)}`,
  );
  socket.end();
  // Bounded: a server that never closes its side is what the fd count below catches.
  const timer = setTimeout(() => socket.destroy(), 2000);
  await closed;
  clearTimeout(timer);
  return received.split("\r\n")[0]!;
}

describe("refused WebSocket upgrades", () => {
  it.each([
    ["a bad percent-encoding", "/v1/operations/%ZZ/ws", 400],
    ["a parameter over 512 characters", `/v1/operations/${"a".repeat(600)}/ws`, 400],
    ["an unknown path", "/v1/nothing-here/ws", 404],
  ])("answers %s with its status", async (_what, path, status) => {
    expect(await badUpgrade(path)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  });

  it("close their sockets: 1,000 of them leave the process's fd count where it was", async () => {
    const paths = ["/v1/operations/%ZZ/ws", `/v1/operations/${"b".repeat(600)}/ws`, "/v1/nothing-here/ws"];
    const before = await openFds();
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => badUpgrade(paths[(round * 50 + i) % paths.length]!)),
      );
    }
    await waitUntil(openFds, (count) => count <= before + 5, "the fd count to come back", 400);
  });
});

describe("a plain GET on a WebSocket route", () => {
  it.each([
    ["watchOperation", `/v1/operations/${newOperationId("payment", 3)}/ws`],
    ["watchTicket", "/v1/rooms/some-room/tickets/tkt_0000000000AAAAAAAAAAAAAAAA/ws"],
  ])("%s answers 426 upgrade_required with Upgrade: websocket, as documented", async (operationId, url) => {
    // With or without a credential: the socket checks it once opened; over HTTP there is nothing to serve.
    for (const headers of [{}, { authorization: `Bearer ${env.serverKey}` }]) {
      const response = await documentedInject(app, { method: "GET", url, headers });
      const body = expectProblem(response, 426, "upgrade_required");
      expect(response.headers.upgrade).toBe("websocket");
      expect(body).toMatchObject({ retryable: false, instance: url.split("?")[0] });
      expect(String(body.detail)).toContain("WebSocket");
      expectDocumentedAnswer(document, operationId, response, ["Upgrade"]);
    }
  });

  it("still upgrades a real WebSocket on the same route", async () => {
    const socket = new WebSocket(
      `ws://127.0.0.1:${port}/v1/operations/${newOperationId("payment", 4)}/ws?access_token=${env.serverKey}`,
    );
    socket.on("error", () => {});
    const [message] = await once(socket, "message");
    expect(JSON.parse(String(message))).toMatchObject({ type: "error", code: "not_found" });
    socket.close();
  });
});

describe("malformed frames", () => {
  it("are logged once per connection at warn, without a stack", async () => {
    const id = newOperationId("payment", 1);
    const socket = new WebSocket(
      `ws://127.0.0.1:${port}/v1/operations/${id}/ws?access_token=${env.serverKey}`,
    );
    socket.on("error", () => {});
    await once(socket, "open");
    const closed = once(socket, "close");
    const from = logLines.length;
    // Three frames with reserved opcodes (0x3, 0x4, 0x5), masked and empty, as a broken client would send.
    const raw = (socket as unknown as { _socket: import("node:net").Socket })._socket;
    raw.write(Buffer.from([0x83, 0x80, 0, 0, 0, 0, 0x84, 0x80, 0, 0, 0, 0, 0x85, 0x80, 0, 0, 0, 0]));
    const [code] = (await closed) as [number];
    expect(code).toBe(1002);
    await waitUntil(
      async () => logLines.slice(from),
      (lines) => lines.length > 0,
      "the warning",
    );
    const lines = logLines.slice(from);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40 });
    expect(JSON.stringify(lines[0])).not.toMatch(/"stack"|\s+at /);
  });
});

describe("app.close()", () => {
  it("closes open sockets with 1001 and finishes", async () => {
    const id = newOperationId("payment", 2);
    const socket = new WebSocket(
      `ws://127.0.0.1:${port}/v1/operations/${id}/ws?access_token=${env.serverKey}`,
    );
    socket.on("error", () => {});
    await once(socket, "open");
    const closed = once(socket, "close");
    await app.close();
    const [code] = (await closed) as [number];
    expect(code).toBe(1001);
  });
});
