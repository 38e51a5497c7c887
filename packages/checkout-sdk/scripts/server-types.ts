// The SDK's types of what the server sends and takes, written from the server's own schemas (@floodgate/domain,
// the same objects the intake validates and serializes with, and the OpenAPI document names). The SDK ships
// alone, so it cannot import them: src/server-types.ts is this renderer's output, committed. The build
// (build-package.ts) and test/server-types.test.ts fail while the committed file differs from what this writes;
// `pnpm --filter @floodgate/checkout-sdk generate` rewrites it.
import {
  catalogProductResponseSchema,
  couponIssueRequestSchema,
  couponIssueResponseSchema,
  depositRequestSchema,
  FAILURE_REASONS,
  OPERATION_STATUSES,
  ORDER_STATUSES,
  operationResponseSchema,
  orderCreateRequestSchema,
  orderResponseSchema,
  paymentRequestSchema,
  refundResponseSchema,
  walletResponseSchema,
} from "@floodgate/domain";

export const SERVER_TYPES_FILE = new URL("../src/server-types.ts", import.meta.url);

/** Lists the server names: each becomes one type alias, and the fields that take one of them refer to it. */
const NAMED_ENUMS: [readonly string[], string, string][] = [
  [OPERATION_STATUSES, "OperationStatus", "A payment's, deposit's, coupon issue's or refund's status."],
  [ORDER_STATUSES, "OrderStatus", "`pending` while the order is queued; the rest as its shard holds it."],
  [FAILURE_REASONS, "FailureReason", "Why an operation failed (its `failureReason`)."],
];

const BODIES: [object, string, string][] = [
  [operationResponseSchema, "PaymentBody", "GET /v1/payments/:id, /v1/deposits/:id: a payment or a deposit."],
  [couponIssueResponseSchema, "CouponIssueBody", "GET /v1/coupon-issues/:id"],
  [orderResponseSchema, "OrderBody", "GET /v1/orders/:id"],
  [refundResponseSchema, "RefundBody", "GET /v1/refunds/:id"],
  [catalogProductResponseSchema, "CatalogProductBody", "GET /v1/catalog/products/:productId"],
  [walletResponseSchema, "WalletBody", "GET /v1/wallets/:userId"],
  [paymentRequestSchema, "PaymentRequestBody", "POST /v1/payments"],
  [depositRequestSchema, "DepositRequestBody", "POST /v1/wallets/:userId/deposits"],
  [orderCreateRequestSchema, "OrderCreateRequestBody", "POST /v1/orders"],
  [couponIssueRequestSchema, "CouponIssueRequestBody", "POST /v1/coupons/:couponId/issues"],
];

const LINE_WIDTH = 110; // biome.json's: the file is written as the formatter would leave it

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: readonly string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

const enumNames = new Map(NAMED_ENUMS.map(([values, name]) => [values, name]));

function typeText(schema: JsonSchema, indent: string): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return enumNames.get(schema.enum) ?? union(schema.enum);
  if (schema.anyOf !== undefined) return schema.anyOf.map((member) => typeText(member, indent)).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types
    .map((type) => {
      switch (type) {
        case "string":
          return "string";
        case "integer":
        case "number":
          return "number";
        case "boolean":
          return "boolean";
        case "null":
          return "null";
        case "array": {
          const item = typeText(schema.items ?? {}, indent);
          return /[ |]/.test(item) && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
        }
        case "object":
          return objectText(schema, indent);
        default:
          throw new Error(`no TypeScript for the JSON Schema type ${String(type)}`);
      }
    })
    .join(" | ");
}

const union = (values: readonly string[]) => values.map((value) => JSON.stringify(value)).join(" | ");

function objectText(schema: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(
    ([key, field]) => `${inner}${key}${required.has(key) ? "" : "?"}: ${typeText(field, inner)};`,
  );
  return `{\n${fields.join("\n")}\n${indent}}`;
}

function aliasText(name: string, values: readonly string[]): string {
  const line = `export type ${name} = ${union(values)};`;
  if (line.length <= LINE_WIDTH) return line;
  return `export type ${name} =\n${values.map((value) => `  | ${JSON.stringify(value)}`).join("\n")};`;
}

export function renderServerTypes(): string {
  const parts = [
    "// Written by scripts/server-types.ts from the server's schemas (@floodgate/domain): do not edit. After a",
    "// schema changes, `pnpm --filter @floodgate/checkout-sdk generate`; the build and test/server-types.test.ts",
    "// fail while this file differs from what the script writes.",
  ];
  for (const [values, name, doc] of NAMED_ENUMS) parts.push("", `/** ${doc} */`, aliasText(name, values));
  for (const [schema, name, doc] of BODIES) {
    parts.push("", `/** ${doc} */`, `export interface ${name} ${objectText(schema as JsonSchema, "")}`);
  }
  return `${parts.join("\n")}\n`;
}
