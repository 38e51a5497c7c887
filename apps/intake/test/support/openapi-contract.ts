// The served OpenAPI document as a test holds a real answer against it: the answer's status is documented for
// its operation, its content type is one the document names, its body validates against that schema (Ajv,
// JSON Schema 2020-12 as OpenAPI 3.1 uses), and each header the test names is both sent and documented.
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";

interface Media {
  schema: object;
}
export interface DocumentedAnswer {
  description: string;
  headers?: Record<string, { schema: { type?: string } }>;
  content?: Record<string, Media>;
}
export interface DocumentedOperation {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; schema?: object }[];
  responses: Record<string, DocumentedAnswer>;
  "x-websocket"?: { serverMessages: Record<string, object> };
}
/** The document with every $ref replaced by what it names, so each schema can be compiled alone. */
export interface ContractDocument {
  paths: Record<string, Record<string, DocumentedOperation>>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);

export async function servedDocument(app: FastifyInstance): Promise<ContractDocument> {
  const response = await app.inject({ method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  return (await SwaggerParser.dereference(response.json())) as unknown as ContractDocument;
}

export function documentedOperation(document: ContractDocument, operationId: string): DocumentedOperation {
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods))
      if (operation.operationId === operationId) return operation;
  }
  throw new Error(`the document has no operation ${operationId}`);
}

/** The answer documented for `status`: its own entry, else its class's (4XX, 5XX). */
export function documentedAnswer(
  document: ContractDocument,
  operationId: string,
  status: number,
): DocumentedAnswer | undefined {
  const { responses } = documentedOperation(document, operationId);
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`];
}

/** Fails unless `value` validates against `schema`, naming what does not. */
export function expectValid(schema: object, value: unknown, where: string): void {
  const validate = ajv.compile(schema);
  expect(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

/**
 * Holds a real answer of `operationId` against the document. `headers`: those the answer must carry and the
 * document must name for its status (each value validated against the header's schema).
 */
export function expectDocumentedAnswer(
  document: ContractDocument,
  operationId: string,
  response: LightMyRequestResponse,
  headers: string[] = [],
): DocumentedAnswer {
  const where = `${operationId} ${response.statusCode}`;
  const answer = documentedAnswer(document, operationId, response.statusCode);
  expect(answer, `${where} is documented`).toBeDefined();
  for (const name of headers) {
    const value = response.headers[name.toLowerCase()];
    expect(value, `${where} sends ${name}`).toBeDefined();
    const documented = answer!.headers?.[name];
    expect(documented, `${where} documents ${name}`).toBeDefined();
    const typed = documented!.schema.type === "integer" ? Number(value) : value;
    expectValid(documented!.schema, typed, `${where} ${name}`);
  }
  // An answer documented without content (a 204) must come without a body.
  if (answer!.content === undefined) {
    expect(response.body, `${where} has no body, as documented`).toBe("");
    return answer!;
  }
  const contentType = String(response.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim();
  const media = Object.entries(answer!.content ?? {}).find(
    ([type]) => type.split(";")[0]!.trim() === contentType,
  );
  expect(media?.[0], `${where} documents ${contentType}`).toBeDefined();
  const body = /json/.test(contentType) ? response.json() : response.body;
  expectValid(media![1].schema, body, `${where} body`);
  return answer!;
}

const documents = new WeakMap<FastifyInstance, Promise<ContractDocument>>();

/**
 * The app's document as /openapi.json serves it, built in process (app.swagger()): no request, so a test that
 * counts requests (rate limits, load shedding) counts only its own.
 */
function documentOf(app: FastifyInstance): Promise<ContractDocument> {
  let document = documents.get(app);
  if (document === undefined) {
    const served = JSON.parse(JSON.stringify(app.swagger()));
    document = SwaggerParser.dereference(served) as unknown as Promise<ContractDocument>;
    documents.set(app, document);
  }
  return document;
}

/** The documented operation a request reached: its path template matched, the fewest parameters first. */
function operationAt(document: ContractDocument, method: string, url: string) {
  const path = url.split("?")[0]!;
  const templates = Object.keys(document.paths)
    .filter((template) => document.paths[template]![method.toLowerCase()] !== undefined)
    .filter((template) => new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`).test(path))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const template = templates[0];
  return template === undefined ? undefined : document.paths[template]![method.toLowerCase()]!;
}

/** Headers the API sends that the document must name wherever an answer carries them. */
const DOCUMENTED_HEADERS = [
  "Location",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "Idempotent-Replayed",
  "WWW-Authenticate",
  "Upgrade",
];

/**
 * The only answers held against no document: each is deliberately outside it, so each is named here (method,
 * path pattern, statuses) with why. An answer not listed is checked; one listed with another status is too.
 */
export const UNDOCUMENTED_ANSWERS: { method: string; path: RegExp; statuses: number[]; why: string }[] = [
  { method: "GET", path: /^\/openapi\.json$/, statuses: [200], why: "the document itself (hide: true)" },
  {
    method: "GET",
    path: /^\/docs(\/static\/.+)?$/,
    statuses: [200],
    why: "the reference page and its assets (@fastify/swagger-ui): HTML and files about the API, not the API",
  },
  ...["GET", "POST"].map((method) => ({
    method,
    path: /^\/demo(\/|$)/,
    statuses: [200, 201, 202, 301, 400, 401, 403, 404],
    why: "the demo store (its files, sign-in and deposit): hidden from the document by isUndocumented",
  })),
  {
    method: "OPTIONS",
    path: /^\//,
    statuses: [204],
    why: "CORS preflights, answered by @fastify/cors before any route; OpenAPI documents no OPTIONS",
  },
];

function undocumentedAnswer(method: string, url: string, status: number) {
  const path = url.split("?")[0]!;
  return UNDOCUMENTED_ANSWERS.find(
    (answer) => answer.method === method && answer.path.test(path) && answer.statuses.includes(status),
  );
}

/**
 * Holds any answer of the app against its document (the test kit's get and post call it on every answer): the
 * operation its URL reaches answers this status, content type and body as documented, and every API header it
 * carries is documented for that status. A URL no operation has is the router's own refusal (404, or 400 for a
 * path it cannot decode): problem+json, checked as such.
 */
export async function expectAnswerDocumented(
  app: FastifyInstance,
  method: string,
  url: string,
  response: LightMyRequestResponse,
): Promise<void> {
  if (undocumentedAnswer(method.toUpperCase(), url, response.statusCode) !== undefined) return;
  const document = await documentOf(app);
  const operation = operationAt(document, method, url);
  const where = `${method} ${url.split("?")[0]} ${response.statusCode}`;
  if (operation === undefined) {
    expect([400, 404], `${where}: no documented operation, so the router's refusal`).toContain(
      response.statusCode,
    );
    expect(response.headers["content-type"], where).toMatch(/^application\/problem\+json/);
    return;
  }
  const sent = DOCUMENTED_HEADERS.filter((name) => response.headers[name.toLowerCase()] !== undefined);
  expectDocumentedAnswer(document, operation.operationId!, response, sent);
}

/** Holds a message a WebSocket sent against the schema the document gives its `type`. */
export function expectDocumentedMessage(
  document: ContractDocument,
  operationId: string,
  message: { type: string },
): void {
  const schema = documentedOperation(document, operationId)["x-websocket"]?.serverMessages[message.type];
  expect(schema, `${operationId} documents the message ${message.type}`).toBeDefined();
  expectValid(schema!, message, `${operationId} ${message.type} message`);
}
