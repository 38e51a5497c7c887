// The crowd's WebSocket client: RFC 6455 over a plain TCP socket, only what a shopper's page needs (text
// messages in, ping answered, close handshake). Why not `ws`: on the 2-vCPU machine a `ws` client cost the
// bench about 370 µs of CPU per socket opened (its handshake goes through node:http's client), so 5,000
// shoppers opening sockets within 2.5 s took about three quarters of a core from the intake they measure. In a
// real sale those clients are 5,000 browsers on other machines. The server side is untouched: it is the
// intake's real `ws` server, and the handshake's Sec-WebSocket-Accept is checked here as a browser checks it.
import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { connect, type Socket } from "node:net";

const ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;
/** A handshake answer longer than this is not a WebSocket server's. */
const MAX_HANDSHAKE_BYTES = 16 * 1024;

export interface LeanWebSocketEvents {
  open: [];
  message: [text: string];
  close: [code: number | null];
  error: [error: Error];
}

/** Events: open, message (each text message, whole), close (once, with the peer's code if it sent one), error. */
export class LeanWebSocket extends EventEmitter<LeanWebSocketEvents> {
  readonly #socket: Socket;
  readonly #key = randomBytes(16).toString("base64");
  #state: "connecting" | "open" | "closing" | "closed" = "connecting";
  #pending: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];

  constructor(url: string) {
    super();
    const target = new URL(url);
    if (target.protocol !== "ws:")
      throw new Error(`lean-websocket speaks ws:// only, not ${target.protocol}`);
    const host = target.hostname;
    const port = Number(target.port || 80);
    this.#socket = connect({ host, port, noDelay: true });
    this.#socket.on("connect", () => {
      this.#socket.write(
        `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\n` +
          `Connection: Upgrade\r\nSec-WebSocket-Key: ${this.#key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    this.#socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on("error", (error) => this.#fail(error));
    this.#socket.on("close", () => this.#finish(null));
  }

  get isOpen(): boolean {
    return this.#state === "open";
  }

  /** Starts the close handshake (code 1000); the socket ends when the server answers it. */
  close(): void {
    if (this.#state !== "open") {
      this.terminate();
      return;
    }
    this.#state = "closing";
    this.#send(OPCODE.close, Buffer.from([0x03, 0xe8]));
  }

  /** Drops the connection without a handshake. */
  terminate(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    if (this.#state === "connecting" && !this.#readHandshake()) return;
    this.#readFrames();
  }

  /** True once the 101 answer was read and checked; the bytes after it stay pending as frames. */
  #readHandshake(): boolean {
    const end = this.#pending.indexOf("\r\n\r\n");
    if (end === -1) {
      if (this.#pending.length > MAX_HANDSHAKE_BYTES) this.#fail(new Error("handshake answer too long"));
      return false;
    }
    const head = this.#pending.subarray(0, end).toString("latin1");
    this.#pending = this.#pending.subarray(end + 4);
    const [statusLine = "", ...headerLines] = head.split("\r\n");
    if (!/^HTTP\/1\.1 101 /.test(statusLine)) {
      this.#fail(new Error(`unexpected handshake answer: ${statusLine}`));
      return false;
    }
    const accept = headerLines
      .find((line) => line.toLowerCase().startsWith("sec-websocket-accept:"))
      ?.slice("sec-websocket-accept:".length)
      .trim();
    const expected = createHash("sha1")
      .update(this.#key + ACCEPT_GUID)
      .digest("base64");
    if (accept !== expected) {
      this.#fail(new Error("handshake answer has a wrong Sec-WebSocket-Accept"));
      return false;
    }
    this.#state = "open";
    this.emit("open");
    return true;
  }

  #readFrames(): void {
    while (this.#state === "open" || this.#state === "closing") {
      const frame = readFrame(this.#pending);
      if (frame === null) return;
      if (frame === "masked") {
        this.#fail(new Error("the server masked a frame (RFC 6455 5.1)"));
        return;
      }
      this.#pending = this.#pending.subarray(frame.length);
      this.#onFrame(frame.fin, frame.opcode, frame.payload);
    }
  }

  #onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OPCODE.text:
      case OPCODE.binary:
      case OPCODE.continuation: {
        this.#fragments.push(payload);
        if (!fin) return;
        const whole = this.#fragments.length === 1 ? payload : Buffer.concat(this.#fragments);
        this.#fragments = [];
        this.emit("message", whole.toString("utf8"));
        return;
      }
      case OPCODE.ping:
        this.#send(OPCODE.pong, payload);
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : null;
        // Echo the code (RFC 6455 5.5.1) unless this side started the handshake, then let the server end TCP.
        if (this.#state === "open") this.#send(OPCODE.close, payload.subarray(0, 2));
        this.#state = "closing";
        this.#socket.end();
        this.#finish(code);
        return;
      }
      default:
        this.#fail(new Error(`unknown opcode ${opcode}`));
    }
  }

  /** A client frame: always masked (RFC 6455 5.3). Control payloads here are at most 125 bytes. */
  #send(opcode: number, payload: Buffer): void {
    if (this.#socket.destroyed || payload.length > 125) return;
    const frame = Buffer.allocUnsafe(6 + payload.length);
    frame[0] = 0x80 | opcode;
    frame[1] = 0x80 | payload.length;
    const mask = randomBytes(4);
    mask.copy(frame, 2);
    for (let i = 0; i < payload.length; i++) frame[6 + i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
    this.#socket.write(frame);
  }

  #fail(error: Error): void {
    if (this.#state === "closed") return;
    this.emit("error", error);
    this.#socket.destroy();
  }

  #finish(code: number | null): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.emit("close", code);
  }
}

/** One server frame from the start of `bytes`: null while incomplete, "masked" for a frame a server must not send. */
export function readFrame(
  bytes: Buffer,
): { fin: boolean; opcode: number; payload: Buffer; length: number } | null | "masked" {
  if (bytes.length < 2) return null;
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  if (second & 0x80) return "masked";
  let size = second & 0x7f;
  let offset = 2;
  if (size === 126) {
    if (bytes.length < 4) return null;
    size = bytes.readUInt16BE(2);
    offset = 4;
  } else if (size === 127) {
    if (bytes.length < 10) return null;
    size = Number(bytes.readBigUInt64BE(2));
    offset = 10;
  }
  if (bytes.length < offset + size) return null;
  return {
    fin: (first & 0x80) !== 0,
    opcode: first & 0x0f,
    payload: bytes.subarray(offset, offset + size),
    length: offset + size,
  };
}
