// The TCP proxy's holdRequestsFrom: a connection's requests are held from the chunk that completes the marker
// (also when the marker is split over two chunks), everything after it on that connection too, and released in
// order; the other connections go through all the while.
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTcpProxy, type TcpProxy } from "../src/index.ts";

const MARKER = "0123456789abcdef";
// Polled, not timed: generous for a loaded machine.
const eventually = { timeout: 20_000, interval: 10 };

let server: Server;
let proxy: TcpProxy;
/** What the server received on each connection, in the order the connections came. */
const received: string[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    const index = received.push("") - 1;
    socket.on("data", (chunk: Buffer) => {
      received[index] += chunk.toString();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy = await startTcpProxy("127.0.0.1", (server.address() as { port: number }).port);
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await proxy?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function client(): Promise<Socket> {
  const socket = connect(proxy.port, "127.0.0.1");
  clients.push(socket);
  await new Promise((resolve) => socket.once("connect", resolve));
  return socket;
}

/** What the server received on the connection whose first bytes are `name`. */
const at = (name: string) => received.find((text) => text.startsWith(name)) ?? "";

describe("a TCP proxy holding requests from a marker", () => {
  it("holds a connection from the marker on, passes the others, and releases in order", async () => {
    proxy.holdRequestsFrom(MARKER);
    const a = await client();
    a.write("a:before;");
    await vi.waitFor(() => expect(at("a:")).toBe("a:before;"), eventually);
    // The marker split over two chunks: the first half goes through (the server has no whole request).
    a.write(`x${MARKER.slice(0, 6)}`);
    await vi.waitFor(() => expect(at("a:")).toBe(`a:before;x${MARKER.slice(0, 6)}`), eventually);
    const held = `${MARKER.slice(6)}y;a:after;`;
    a.write(held);
    await vi.waitFor(() => expect(proxy.heldRequestBytes()).toBe(held.length), eventually);

    const b = await client();
    b.write("b:through;");
    await vi.waitFor(() => expect(at("b:")).toBe("b:through;"), eventually);
    const c = await client();
    c.write(`c:${MARKER};`);
    await vi.waitFor(
      () => expect(proxy.heldRequestBytes()).toBe(held.length + `c:${MARKER};`.length),
      eventually,
    );
    expect(at("a:")).toBe(`a:before;x${MARKER.slice(0, 6)}`);
    expect(at("c:")).toBe("");

    proxy.releaseRequests();
    await vi.waitFor(() => expect(at("a:")).toBe(`a:before;x${MARKER}y;a:after;`), eventually);
    await vi.waitFor(() => expect(at("c:")).toBe(`c:${MARKER};`), eventually);
    expect(proxy.heldRequestBytes()).toBe(0);
    // Released: the marker holds nothing any more.
    a.write(`${MARKER};a:last;`);
    await vi.waitFor(
      () => expect(at("a:")).toBe(`a:before;x${MARKER}y;a:after;${MARKER};a:last;`),
      eventually,
    );
  });
});
