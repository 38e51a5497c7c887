// Deeply nested JSON: the 100k nested arrays (200 KB, over the 16 KB body limit: 413 before any
// parse), and the deepest documents that fit under the limit, which do reach the JSON parser, the prototype
// poisoning scan (a "__proto__" or "constructor" key makes Fastify walk the whole document) and the schema.
// Expected: 400 or 413 quickly, no stack overflow, no crash.
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { ProbeTally } from "./probe-tally.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

const REPEATS = 10;
const PARALLEL = 4;
/** Under the intake's 16 KB body limit (app.ts BODY_LIMIT_BYTES) with room for the wrapper. */
const UNDER_LIMIT = 16 * 1024 - 64;

const nestedArrays = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const nestedObjects = (depth: number, inner = "1") => `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}`;

export function deepDocuments(): [string, string][] {
  const arraysUnder = Math.floor(UNDER_LIMIT / 2);
  const objectsUnder = Math.floor(UNDER_LIMIT / 6);
  return [
    ["100k nested arrays", nestedArrays(100_000)],
    ["100k nested arrays as amount", `{"amount":${nestedArrays(100_000)}}`],
    [`${arraysUnder} nested arrays`, nestedArrays(arraysUnder - 10)],
    [`${arraysUnder} nested arrays as amount`, `{"amount":${nestedArrays(arraysUnder - 20)}}`],
    [`${objectsUnder} nested objects`, nestedObjects(objectsUnder - 10)],
    [
      `${objectsUnder} nested objects ending in __proto__`,
      nestedObjects(objectsUnder - 20, '{"__proto__":{"x":1}}'),
    ],
    [
      `${objectsUnder} nested objects ending in constructor.prototype`,
      nestedObjects(objectsUnder - 30, '{"constructor":{"prototype":{"x":1}}}'),
    ],
    ["unclosed 8k nested arrays", "[".repeat(8000)],
  ];
}

export async function runDeepJsonProbe(t: HostileTarget): Promise<ProbeTally> {
  const tally = new ProbeTally("deep JSON");
  const cases = deepDocuments().flatMap(([name, text]) =>
    ["/v1/payments", "/v1/orders"].flatMap((path) =>
      Array.from({ length: REPEATS }, () => ({
        name: `POST ${path} ${name}`,
        path,
        body: Buffer.from(text),
      })),
    ),
  );
  let slowest = 0;
  await eachLimited(cases, PARALLEL, async ({ name, path, body }) => {
    const answer = await rawExchange({
      host: t.host,
      port: t.port,
      head: requestHead("POST", path, [
        ["Host", `${t.host}:${t.port}`],
        ["Authorization", t.serverAuthorization],
        ["Content-Type", "application/json"],
        ["Content-Length", String(body.length)],
        ["Connection", "close"],
      ]),
      body: [body],
      timeoutMs: 10_000,
    });
    slowest = Math.max(slowest, answer.ms);
    tally.add(answer, name, t.serverAuthorization);
  });
  tally.note(`slowest answer ${Math.round(slowest)} ms`);
  return tally;
}
