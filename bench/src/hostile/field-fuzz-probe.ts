// Control characters and 10 KB strings in every field of the routes that take input (body fields, path
// parameters, a hostile field name), one field at a time on an otherwise valid request, sent twice: as valid
// JSON (the characters escaped) and as raw bytes inside the string (invalid JSON). Expected: 4xx, never 5xx.
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { HOSTILE_FIELD_VALUES, pathSegment } from "./hostile-values.ts";
import { ProbeTally } from "./probe-tally.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

interface RouteCase {
  method: "GET" | "POST";
  /** Path with `{param}` placeholders filled from `params`. */
  path: string;
  params: Record<string, string>;
  body?: Record<string, unknown>;
  /** Dotted paths into the body ("items.0.productId"). */
  fields: string[];
  authorization: string;
}

const PLACEHOLDER = "\u0000hostile\u0000";
const PARALLEL = 16;

export function routeCases(t: HostileTarget): RouteCase[] {
  const server = t.serverAuthorization;
  const customer = t.customerAuthorization;
  const items = [{ productId: t.productId, quantity: 1 }];
  return [
    {
      method: "POST",
      path: "/v1/payments",
      params: {},
      body: { userId: t.userId, amount: 1 },
      fields: ["userId", "amount", "currency", "orderId"],
      authorization: server,
    },
    {
      method: "POST",
      path: "/v1/payments",
      params: {},
      body: { amount: 1 },
      fields: ["userId", "amount", "currency"],
      authorization: customer,
    },
    {
      method: "POST",
      path: "/v1/orders",
      params: {},
      body: { items },
      fields: ["userId", "items.0.productId", "items.0.quantity", "couponIssueId"],
      authorization: customer,
    },
    {
      method: "POST",
      path: "/v1/coupons/{couponId}/issues",
      params: { couponId: t.couponId },
      body: {},
      fields: ["userId"],
      authorization: customer,
    },
    {
      method: "POST",
      path: "/v1/wallets/{userId}/deposits",
      params: { userId: t.userId },
      body: { amount: 1 },
      fields: ["amount", "currency"],
      authorization: server,
    },
    {
      method: "POST",
      path: "/v1/customer-sessions",
      params: {},
      body: { userId: t.userId },
      fields: ["userId", "ttlSeconds"],
      authorization: server,
    },
    {
      method: "POST",
      path: "/v1/rooms/{roomId}/tickets",
      params: { roomId: "hostile" },
      body: {},
      fields: ["userId"],
      authorization: customer,
    },
    {
      method: "POST",
      path: "/v1/products",
      params: {},
      body: { name: "hostile", price: 1, stock: 0 },
      fields: ["name", "price", "stock"],
      authorization: t.adminAuthorization,
    },
    {
      method: "GET",
      path: "/v1/payments/{id}",
      params: { id: t.operationId },
      fields: [],
      authorization: server,
    },
    {
      method: "GET",
      path: "/v1/orders/{orderId}",
      params: { orderId: "ord_00000000000000000000000000" },
      fields: [],
      authorization: customer,
    },
    {
      method: "GET",
      path: "/v1/wallets/{userId}",
      params: { userId: t.userId },
      fields: [],
      authorization: server,
    },
    {
      method: "GET",
      path: "/v1/users/{userId}/coupons",
      params: { userId: t.userId },
      fields: [],
      authorization: customer,
    },
  ];
}

interface FuzzRequest {
  label: string;
  method: string;
  path: string;
  body: Buffer | null;
  authorization: string;
}

export function fuzzRequests(t: HostileTarget): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  for (const route of routeCases(t)) {
    const fill = (params: Record<string, string>) =>
      route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? "");
    for (const [valueName, value] of Object.entries(HOSTILE_FIELD_VALUES)) {
      const base = { method: route.method, authorization: route.authorization };
      const bodyOf = (text: string | undefined) => (text === undefined ? null : Buffer.from(text, "utf8"));
      for (const param of Object.keys(route.params)) {
        requests.push({
          ...base,
          label: `${route.method} ${route.path} path ${param}: ${valueName}`,
          path: fill({ ...route.params, [param]: pathSegment(value) }),
          body: bodyOf(route.body && JSON.stringify(route.body)),
        });
      }
      if (route.body === undefined) continue;
      const fields = [...route.fields, "__field_name__"];
      for (const field of fields) {
        const template =
          field === "__field_name__"
            ? JSON.stringify({ ...route.body, [PLACEHOLDER]: 1 })
            : JSON.stringify(withField(route.body, field, PLACEHOLDER));
        const escaped = JSON.stringify(value).slice(1, -1);
        const where = field === "__field_name__" ? "a field's name" : field;
        for (const [encoding, inner] of [
          ["escaped", escaped],
          ["raw", value],
        ] as const) {
          requests.push({
            ...base,
            label: `${route.method} ${route.path} ${where} (${encoding}): ${valueName}`,
            path: fill(route.params),
            body: Buffer.from(
              template.replace(JSON.stringify(PLACEHOLDER).slice(1, -1), () => inner),
              "utf8",
            ),
          });
        }
      }
    }
  }
  return requests;
}

export async function runFieldFuzzProbe(t: HostileTarget): Promise<ProbeTally> {
  const tally = new ProbeTally("control characters and 10 KB strings in fields");
  const requests = fuzzRequests(t);
  await eachLimited(requests, PARALLEL, async (request) => {
    const headers: [string, string][] = [
      ["Host", `${t.host}:${t.port}`],
      ["Authorization", request.authorization],
      ["Connection", "close"],
    ];
    if (request.body !== null) {
      headers.push(["Content-Type", "application/json"], ["Content-Length", String(request.body.length)]);
    }
    const answer = await rawExchange({
      host: t.host,
      port: t.port,
      head: requestHead(request.method, request.path, headers),
      ...(request.body === null ? {} : { body: [request.body] }),
      timeoutMs: 10_000,
    });
    tally.add(answer, request.label, request.authorization);
  });
  return tally;
}

/** A copy of `body` with the dotted `path` set to `value` (arrays by index). */
function withField(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = path.split(".");
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
  return copy;
}
