// The overload burst's reading of answers: HTTP/1.1 responses, pipelined, read with as little work as the
// figures need (status, Content-Length, whether Retry-After is there, `Connection: close`); the body is handed
// over as a range of the bytes read, never copied into a string. Fastify answers every JSON reply with a
// Content-Length: a chunked or length-less answer is reported as unparseable and the caller closes the
// connection (its unanswered requests then count as socket errors). Pure, so it is tested.

/** One complete answer: `data[bodyStart, bodyEnd)` is its body (valid only during the call). */
export type AnswerHandler = (
  status: number,
  retryAfter: boolean,
  close: boolean,
  data: Buffer,
  bodyStart: number,
  bodyEnd: number,
) => void;

const HEAD_END = Buffer.from("\r\n\r\n");
const COLON = 0x3a;

interface Head {
  status: number;
  contentLength: number;
  retryAfter: boolean;
  close: boolean;
}

const headerName = (data: Buffer, start: number, end: number): string =>
  data.toString("latin1", start, end).toLowerCase();

function parseDecimal(data: Buffer, start: number, end: number): number {
  let value = -1;
  for (let i = start; i < end; i++) {
    const digit = data[i]! - 0x30;
    if (digit >= 0 && digit <= 9) value = (value < 0 ? 0 : value * 10) + digit;
    else if (value >= 0) break;
  }
  return value;
}

/** The head between `start` and `headEnd` (the blank line), or why it cannot be read. */
export function parseHead(data: Buffer, start: number, headEnd: number): Head | string {
  if (data.toString("latin1", start, start + 7) !== "HTTP/1.") return "not an HTTP/1.x response";
  const status = parseDecimal(data, start + 9, start + 12);
  if (status < 200) return `status ${status} is not handled`;
  const head: Head = { status, contentLength: -1, retryAfter: false, close: false };
  if (data[start + 7] === 0x30) head.close = true; // HTTP/1.0 closes unless told otherwise
  let line = data.indexOf("\r\n", start) + 2;
  while (line > 1 && line < headEnd) {
    let lineEnd = data.indexOf("\r\n", line);
    if (lineEnd < 0 || lineEnd > headEnd) lineEnd = headEnd;
    const colon = data.indexOf(COLON, line);
    if (colon > line && colon < lineEnd) {
      // Only names of a length we look for are decoded: most lines cost one comparison.
      switch (colon - line) {
        case 14:
          if (headerName(data, line, colon) === "content-length")
            head.contentLength = parseDecimal(data, colon + 1, lineEnd);
          break;
        case 11:
          if (headerName(data, line, colon) === "retry-after") head.retryAfter = true;
          break;
        case 10:
          if (headerName(data, line, colon) === "connection") {
            const value = headerName(data, colon + 1, lineEnd);
            head.close = value.includes("close") || (head.close && !value.includes("keep-alive"));
          }
          break;
        case 17:
          if (headerName(data, line, colon) === "transfer-encoding") return "a chunked response";
          break;
      }
    }
    line = lineEnd + 2;
  }
  if (head.contentLength < 0) {
    if (status === 204 || status === 304) head.contentLength = 0;
    else return `status ${status} without Content-Length`;
  }
  return head;
}

/** Reads one connection's answers, in order, across reads that split them anywhere. */
export class ResponseParser {
  #rest: Buffer | null = null;

  /** Calls `onAnswer` for each complete answer; returns why the stream cannot be read (then the connection is
   * beyond use), or null. */
  feed(chunk: Buffer, onAnswer: AnswerHandler): string | null {
    const data = this.#rest === null ? chunk : Buffer.concat([this.#rest, chunk]);
    let at = 0;
    while (at < data.length) {
      const headEnd = data.indexOf(HEAD_END, at);
      if (headEnd < 0) break;
      const head = parseHead(data, at, headEnd);
      if (typeof head === "string") {
        this.#rest = null;
        return head;
      }
      const bodyStart = headEnd + 4;
      const bodyEnd = bodyStart + head.contentLength;
      if (bodyEnd > data.length) break;
      onAnswer(head.status, head.retryAfter, head.close, data, bodyStart, bodyEnd);
      at = bodyEnd;
    }
    // A copy: a view would keep the whole read alive for a few bytes of the next answer.
    this.#rest = at >= data.length ? null : Buffer.from(data.subarray(at));
    return null;
  }

  /** Bytes of an answer not complete yet. */
  get pendingBytes(): number {
    return this.#rest?.length ?? 0;
  }
}

const ID_FIELD = Buffer.from('"id":"');
const QUOTE = 0x22;

/** The range of the string value of the body's first `"id"` field, or null. */
export function idRange(data: Buffer, bodyStart: number, bodyEnd: number): [number, number] | null {
  const field = data.indexOf(ID_FIELD, bodyStart);
  if (field < 0 || field >= bodyEnd) return null;
  const start = field + ID_FIELD.length;
  const end = data.indexOf(QUOTE, start);
  return end < 0 || end > bodyEnd ? null : [start, end];
}
