import { describe, expect, it } from "vitest";
import { auditBurst } from "../src/faults/burst-audit.ts";
import { BurstIdList } from "../src/faults/burst-id-list.ts";
import { arrivalSlot, arrivalsDue, histogramPercentile } from "../src/faults/burst-pacing.ts";
import { burstTemplate } from "../src/faults/burst-request-template.ts";
import { idRange, ResponseParser } from "../src/faults/burst-response-parser.ts";

const answer = (status: number, body: string, headers: string[] = []) =>
  `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\n${headers.map((h) => `${h}\r\n`).join("")}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

function parseAll(chunks: Buffer[]) {
  const parser = new ResponseParser();
  const seen: { status: number; retryAfter: boolean; close: boolean; body: string }[] = [];
  const problems: string[] = [];
  for (const chunk of chunks) {
    const problem = parser.feed(chunk, (status, retryAfter, close, data, start, end) =>
      seen.push({ status, retryAfter, close, body: data.toString("latin1", start, end) }),
    );
    if (problem) problems.push(problem);
  }
  return { seen, problems, pending: parser.pendingBytes };
}

describe("ResponseParser", () => {
  const stream = Buffer.from(
    answer(202, '{"id":"pay_1","status":"pending"}') +
      answer(503, '{"code":"overloaded"}', ["Retry-After: 1"]) +
      answer(429, "{}", ["retry-after: 2", "Connection: close"]),
  );

  it("reads pipelined answers from one read", () => {
    const { seen, problems, pending } = parseAll([stream]);
    expect(problems).toEqual([]);
    expect(pending).toBe(0);
    expect(seen).toEqual([
      { status: 202, retryAfter: false, close: false, body: '{"id":"pay_1","status":"pending"}' },
      { status: 503, retryAfter: true, close: false, body: '{"code":"overloaded"}' },
      { status: 429, retryAfter: true, close: true, body: "{}" },
    ]);
  });

  it("reads the same answers when every byte arrives alone", () => {
    const bytes = Array.from(stream, (byte) => Buffer.from([byte]));
    expect(parseAll(bytes).seen).toEqual(parseAll([stream]).seen);
  });

  it("refuses a chunked answer and one without Content-Length", () => {
    const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
    expect(parseAll([Buffer.from(chunked)]).problems).toEqual(["a chunked response"]);
    expect(parseAll([Buffer.from("HTTP/1.1 200 OK\r\nx: y\r\n\r\n")]).problems[0]).toMatch(/Content-Length/);
  });

  it("finds the id of a 2xx body, and none where there is none", () => {
    const body = Buffer.from('{"requestId":"r","id":"pay_ABC","status":"pending"}');
    const range = idRange(body, 0, body.length);
    expect(range && body.toString("latin1", range[0], range[1])).toBe("pay_ABC");
    expect(idRange(Buffer.from('{"status":"x"}'), 0, 14)).toBeNull();
  });
});

describe("burst arithmetic", () => {
  it("makes arrivals due by the clock alone", () => {
    expect(arrivalsDue(0, 50_000)).toBe(0);
    expect(arrivalsDue(10, 50_000)).toBe(500);
    expect(arrivalsDue(1000, 333)).toBe(333);
    expect(arrivalsDue(1500, 333)).toBe(499);
  });

  it("spreads arrivals round robin over connections and users", () => {
    expect(arrivalSlot(0, 4, 10)).toEqual({ connection: 0, user: 0 });
    expect(arrivalSlot(13, 4, 10)).toEqual({ connection: 1, user: 3 });
  });

  it("reads percentiles from a histogram of whole milliseconds", () => {
    const buckets = new Uint32Array(100);
    buckets[1] = 98;
    buckets[40] = 2;
    expect(histogramPercentile(buckets, 0.5)).toBe(2);
    expect(histogramPercentile(buckets, 0.99)).toBe(41);
    expect(histogramPercentile(new Uint32Array(5), 0.99)).toBeNull();
  });

  it("builds each request with its user's token, body and a key of its own", () => {
    const template = burstTemplate({
      host: "127.0.0.1",
      port: 8080,
      users: [
        { userId: "u0", token: "t0" },
        { userId: "u1", token: null },
      ],
      keyPrefix: "k",
      amount: 2,
    });
    const first = template.request(0, 7);
    expect(first).toContain("Authorization: Bearer t0\r\n");
    expect(first).toContain("Idempotency-Key: k-7\r\n");
    const body = '{"userId":"u0","amount":2}';
    expect(first.endsWith(`\r\n\r\n${body}`)).toBe(true);
    expect(first).toContain(`Content-Length: ${body.length}\r\n`);
    expect(template.request(1, 8)).not.toContain("Authorization");
  });
});

const idList = (...ids: string[]) => {
  const list = new BurstIdList();
  for (const id of ids) list.push(Buffer.from(`"${id}"`), 1, id.length + 1);
  return list;
};

describe("BurstIdList", () => {
  it("keeps ids packed, across growth and a round trip through pack", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `pay_${i}`);
    const list = idList(...ids);
    expect(list.length).toBe(5000);
    const copy = BurstIdList.from(list.pack());
    expect(Array.from({ length: copy.length }, (_, i) => copy.at(i))).toEqual(ids);
  });
});

describe("auditBurst", () => {
  it("passes every 2xx applied once", () => {
    const audit = auditBurst(idList("a", "b"), ["a", "b"], 0);
    expect(audit).toMatchObject({
      accepted: 2,
      applied: 2,
      lost: 0,
      twice: 0,
      appliedWithoutAnswer: 0,
      withinUnknown: true,
    });
  });

  it("counts a 2xx with no row as lost and an id on two shards as twice", () => {
    const audit = auditBurst(idList("a", "b", "c"), ["a", "a", "c"], 0);
    expect(audit).toMatchObject({ lost: 1, twice: 1, examples: { lost: ["b"], twice: ["a"] } });
  });

  it("allows rows no 2xx named up to the unknown outcomes, not beyond", () => {
    expect(auditBurst(idList("a"), ["a", "x"], 1).withinUnknown).toBe(true);
    const audit = auditBurst(idList("a", "a"), ["a", "x", "y"], 1);
    expect(audit).toMatchObject({ appliedWithoutAnswer: 2, withinUnknown: false, duplicateAnswers: 1 });
  });
});
