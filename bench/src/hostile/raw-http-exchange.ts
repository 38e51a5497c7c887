// One HTTP/1.1 request written byte for byte on a connection of its own. Hostile input needs what node:http and
// fetch refuse to send (control characters in a header, a lying Content-Length, half a request), and an answer
// read however the server chooses to give it: a status, a reset, or nothing until a timeout.
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  /** null: the connection ended (or timed out) before a status line. */
  status: number | null;
  head: string;
  body: string;
  /** ms from the connection's start to the whole answer, the error or the timeout. */
  ms: number;
  /** Every byte received, head included. */
  raw: Buffer;
  /** What ended the exchange when it was not a whole answer: "timeout", "ECONNRESET", "closed" ... */
  error: string | null;
}

export interface RawRequest {
  host: string;
  port: number;
  /** The request line and headers, ending with the blank line. */
  head: string | Buffer;
  /** Body parts, written in order with backpressure; writing stops once the server has answered. */
  body?: Iterable<Buffer | string>;
  timeoutMs: number;
  /** When the answer is whole; by default answerComplete (a 101 is whole once its head is read). */
  complete?: (bytes: Buffer) => boolean;
}

const HEAD_END = "\r\n\r\n";

export function rawExchange(request: RawRequest): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: request.host, port: request.port, noDelay: true });
    let received = Buffer.alloc(0);
    let done = false;
    const complete = request.complete ?? answerComplete;
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(received), raw: received, ms: performance.now() - started, error });
    };
    const timer = setTimeout(() => finish("timeout"), request.timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (complete(received)) finish(null);
    });
    socket.on("error", (error: Error & { code?: string }) => finish(error.code ?? error.message));
    socket.on("close", () => finish(complete(received) ? null : "closed"));
    socket.on("connect", () => {
      void writeAll(socket, request, () => done);
    });
  });
}

async function writeAll(socket: Socket, request: RawRequest, stopped: () => boolean): Promise<void> {
  await writeOne(socket, request.head);
  for (const part of request.body ?? []) {
    if (stopped() || socket.destroyed) return;
    // One part at a time, each flushed to the kernel first: writing stops soon after the server answered.
    // A server that closes with the body unread resets the connection, and the write that meets the reset
    // destroys this socket, its answer possibly unread: that shows as EPIPE or ECONNRESET with no status.
    await writeOne(socket, part);
  }
}

const writeOne = (socket: Socket, bytes: Buffer | string) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(bytes, () => resolve());
  });

/** A head plus, by Content-Length or chunked framing, the whole body; a 101 is whole once its head is. */
export function answerComplete(bytes: Buffer): boolean {
  const end = bytes.indexOf(HEAD_END);
  if (end === -1) return false;
  const head = bytes.subarray(0, end).toString("latin1");
  if (/^HTTP\/1\.[01] 101 /.test(head)) return true;
  const body = bytes.subarray(end + HEAD_END.length);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return body.length >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return body.includes("0\r\n\r\n");
  return false;
}

export function parseAnswer(bytes: Buffer): Pick<RawAnswer, "status" | "head" | "body"> {
  const end = bytes.indexOf(HEAD_END);
  const head = (end === -1 ? bytes : bytes.subarray(0, end)).toString("latin1");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return {
    status: status ? Number(status[1]) : null,
    head,
    body: end === -1 ? "" : bytes.subarray(end + HEAD_END.length).toString("utf8"),
  };
}

/** A header's value from a raw head (first one, case-insensitive), or null. */
export function headerOf(head: string, name: string): string | null {
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

/** A request head from header pairs, bytes as given (latin1): a value may hold any byte a probe wants to send. */
export function requestHead(method: string, path: string, headers: readonly [string, string][]): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`)];
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
}
