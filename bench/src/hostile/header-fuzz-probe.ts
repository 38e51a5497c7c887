// Control characters and 10 KB strings in every header the intake reads (and the usual ones a proxy passes
// on), one header at a time on an otherwise valid request; then every header at 10 KB at once (over Node's
// 16 KB header limit: 431), a header name with control characters, and bare CR/LF inside a value. Expected:
// 4xx, or 202 for a header the intake ignores; never 5xx. Each 202 goes to the accepted-and-lost audit.
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { HOSTILE_HEADER_FRAMING, HOSTILE_HEADER_VALUES } from "./hostile-values.ts";
import { ProbeTally } from "./probe-tally.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

const HEADERS = [
  "Authorization",
  "Idempotency-Key",
  "Admission-Token",
  "X-Forwarded-For",
  "X-Request-Id",
  "Content-Type",
  "User-Agent",
  "Origin",
  "Accept",
  "Cookie",
];
const PARALLEL = 16;

interface BaseRequest {
  name: string;
  method: string;
  path: string;
  body: string | null;
  authorization: string;
}

function baseRequests(t: HostileTarget): BaseRequest[] {
  return [
    {
      name: "POST /v1/payments (server key)",
      method: "POST",
      path: "/v1/payments",
      body: JSON.stringify({ userId: t.userId, amount: 1 }),
      authorization: t.serverAuthorization,
    },
    {
      name: "POST /v1/orders (customer token)",
      method: "POST",
      path: "/v1/orders",
      body: JSON.stringify({ items: [{ productId: t.productId, quantity: 1 }] }),
      authorization: t.customerAuthorization,
    },
    {
      name: "GET /v1/payments/:id",
      method: "GET",
      path: `/v1/payments/${t.operationId}`,
      body: null,
      authorization: t.serverAuthorization,
    },
  ];
}

interface HeaderCase {
  label: string;
  base: BaseRequest;
  /** Replaces the base header of the same name (or adds it). */
  headers: [string, string][];
}

function headerCases(t: HostileTarget): HeaderCase[] {
  const cases: HeaderCase[] = [];
  for (const base of baseRequests(t)) {
    const values = { ...HOSTILE_HEADER_VALUES, ...HOSTILE_HEADER_FRAMING };
    for (const header of HEADERS) {
      for (const [valueName, value] of Object.entries(values)) {
        cases.push({ label: `${base.name} ${header}: ${valueName}`, base, headers: [[header, value]] });
        if (header === "Authorization") {
          // After the scheme too: the value reaches the token parser, not only the header parser.
          cases.push({
            label: `${base.name} Authorization: Bearer + ${valueName}`,
            base,
            headers: [[header, `Bearer ${value}`]],
          });
        }
      }
    }
    const tenKb = HOSTILE_HEADER_VALUES["10 KB string"]!;
    cases.push({
      label: `${base.name} every header 10 KB at once`,
      base,
      headers: HEADERS.map((h) => [h, tenKb]),
    });
    cases.push({
      label: `${base.name} a header name with control characters`,
      base,
      headers: [["X-\u0001\u0000Bad", "1"]],
    });
    cases.push({
      label: `${base.name} a 10 KB header name`,
      base,
      headers: [[`X-${"n".repeat(10 * 1024)}`, "1"]],
    });
    cases.push({
      label: `${base.name} two Authorization headers`,
      base,
      headers: [
        ["Authorization", t.customerAuthorization],
        ["Authorization", t.serverAuthorization],
      ],
    });
  }
  return cases;
}

export async function runHeaderFuzzProbe(t: HostileTarget): Promise<ProbeTally> {
  const tally = new ProbeTally("control characters and 10 KB strings in headers");
  await eachLimited(headerCases(t), PARALLEL, async ({ label, base, headers }) => {
    const body = base.body === null ? null : Buffer.from(base.body, "utf8");
    const defaults: [string, string][] = [
      ["Host", `${t.host}:${t.port}`],
      ["Authorization", base.authorization],
      ["Connection", "close"],
    ];
    if (body !== null)
      defaults.push(["Content-Type", "application/json"], ["Content-Length", String(body.length)]);
    const replaced = new Set(headers.map(([name]) => name.toLowerCase()));
    const all = [...defaults.filter(([name]) => !replaced.has(name.toLowerCase())), ...headers];
    const answer = await rawExchange({
      host: t.host,
      port: t.port,
      head: requestHead(base.method, base.path, all),
      ...(body === null ? {} : { body: [body] }),
      timeoutMs: 10_000,
    });
    // The audit reads a 202 with the credential that made it (a fuzzed Authorization cannot have made one).
    tally.add(answer, label, base.authorization);
  });
  return tally;
}
