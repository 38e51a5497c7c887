// The crowd's lean client against a real `ws` server (the library the intake serves WebSockets with).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { LeanWebSocket, readFrame } from "../src/harness/lean-websocket.ts";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A `ws` server on a free port; `onSocket` gets each server-side socket. */
async function wsServer(onSocket: (socket: WebSocket) => void): Promise<string> {
  const server = createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on("connection", onSocket);
  server.on("close", () => wss.close());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/room/ws?x=1`;
}

const nextEvent = <T extends unknown[]>(emitter: LeanWebSocket, name: "close" | "error" | "open") =>
  new Promise<T>((resolve) => emitter.once(name, (...args: unknown[]) => resolve(args as T)));

describe("LeanWebSocket", () => {
  it("opens and reads text messages of every length encoding, in order, and a fragmented one whole", async () => {
    const long = "x".repeat(70_000); // 64-bit length
    const medium = "é".repeat(100); // 200 bytes: 16-bit length, multi-byte UTF-8
    const url = await wsServer((socket) => {
      socket.send("short");
      socket.send(medium);
      socket.send(long);
      socket.send("frag", { fin: false });
      socket.send("mented", { fin: true });
    });
    const client = new LeanWebSocket(url);
    const messages: string[] = [];
    client.on("message", (text) => messages.push(text));
    await nextEvent(client, "open");
    expect(client.isOpen).toBe(true);
    await expect.poll(() => messages.length).toBe(4);
    expect(messages).toEqual(["short", medium, long, "fragmented"]);
    client.terminate();
  });

  it("answers a ping with a pong that carries its payload", async () => {
    let pong: Promise<string> = Promise.resolve("");
    const url = await wsServer((socket) => {
      pong = new Promise((resolve) => socket.once("pong", (data) => resolve(String(data))));
      socket.ping("are you there");
    });
    const client = new LeanWebSocket(url);
    await nextEvent(client, "open");
    await expect.poll(() => pong).toBe("are you there");
    client.terminate();
  });

  it("completes a close the server starts, echoing its code", async () => {
    let serverSaw: Promise<number> = Promise.resolve(0);
    const url = await wsServer((socket) => {
      serverSaw = new Promise((resolve) => socket.once("close", (code) => resolve(code)));
      socket.send("bye");
      socket.close(4404, "no such ticket");
    });
    const client = new LeanWebSocket(url);
    const messages: string[] = [];
    client.on("message", (text) => messages.push(text));
    const [code] = await nextEvent<[number | null]>(client, "close");
    expect(code).toBe(4404);
    expect(messages).toEqual(["bye"]);
    expect(await serverSaw).toBe(4404);
  });

  it("closes with 1000 when the client starts it", async () => {
    let serverSaw: Promise<number> = Promise.resolve(0);
    const url = await wsServer((socket) => {
      serverSaw = new Promise((resolve) => socket.once("close", (code) => resolve(code)));
    });
    const client = new LeanWebSocket(url);
    await nextEvent(client, "open");
    const closed = nextEvent<[number | null]>(client, "close");
    client.close();
    expect((await closed)[0]).toBe(1000);
    expect(await serverSaw).toBe(1000);
  });

  it("fails, then closes, when the answer is not a WebSocket upgrade", async () => {
    const server = createServer((_request, response) => response.end());
    server.on("upgrade", (_request, socket) =>
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = new LeanWebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`);
    const opened = vi.fn();
    client.on("open", opened);
    const closed = nextEvent(client, "close");
    const [error] = await nextEvent<[Error]>(client, "error");
    expect(error.message).toContain("HTTP/1.1 404 Not Found");
    await closed;
    expect(opened).not.toHaveBeenCalled();
  });

  it("refuses anything but ws://", () => {
    expect(() => new LeanWebSocket("wss://127.0.0.1:1/ws")).toThrow(/ws:\/\/ only/);
  });
});

describe("readFrame", () => {
  it("waits for a whole frame and refuses a masked one", () => {
    expect(readFrame(Buffer.from([0x81]))).toBeNull();
    expect(readFrame(Buffer.from([0x81, 0x05, 0x68]))).toBeNull();
    expect(readFrame(Buffer.from([0x81, 0x7e, 0x00]))).toBeNull();
    expect(readFrame(Buffer.from([0x81, 0x85, 0, 0, 0, 0, 0]))).toBe("masked");
    const frame = readFrame(Buffer.from([0x81, 0x02, 0x68, 0x69, 0x81]));
    expect(frame).toMatchObject({ fin: true, opcode: 1, length: 4 });
    expect(frame !== null && frame !== "masked" && frame.payload.toString()).toBe("hi");
  });
});
