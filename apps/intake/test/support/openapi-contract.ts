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
