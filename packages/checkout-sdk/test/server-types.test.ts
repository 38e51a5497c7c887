// The SDK ships alone, so its types of the server's bodies are a copy: src/server-types.ts, written by
// scripts/server-types.ts from the server's schemas. These tests fail on drift: the committed copy must be
// what the script writes now, and TypeScript itself is asked whether the SDK's public status types accept
// every status the server's response schemas allow (the SDK once told a shop an order is never refunded).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  couponIssueResponseSchema,
  operationResponseSchema,
  orderResponseSchema,
  refundResponseSchema,
} from "@floodgate/domain";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import { renderServerTypes, SERVER_TYPES_FILE } from "../scripts/server-types.ts";
import type { CouponIssueView, MoneyOperationView, OrderView, RefundView } from "../src/index.ts";

/** What the server may answer, by the SDK type that must take it: the intake serializes with these schemas. */
const SERVER_STATUSES: Record<string, readonly string[]> = {
  'MoneyOperationView["status"]': operationResponseSchema.properties.status.enum,
  'OrderView["status"]': orderResponseSchema.properties.status.enum,
  'RefundView["status"]': refundResponseSchema.properties.status.enum,
  'CouponIssueView["status"]': couponIssueResponseSchema.properties.status.enum,
};

const PROBE = fileURLToPath(new URL("../src/status-probe.ts", import.meta.url));

/**
 * Compiles, beside the SDK's source, one assignment of each server status to the SDK type that must take it,
 * and returns the ones TypeScript refuses, as "<type> <- <status>".
 */
function refusedAssignments(): string[] {
  const lines = Object.entries(SERVER_STATUSES).flatMap(([type, statuses]) =>
    statuses.map((status) => ({ type, status })),
  );
  const source = [
    'import type { CouponIssueView, MoneyOperationView, OrderView, RefundView } from "./index.ts";',
    ...lines.map(({ type, status }, i) => `export const s${i}: ${type} = ${JSON.stringify(status)};`),
  ].join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === PROBE ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === PROBE || fileExists(name);
  const program = ts.createProgram([PROBE], options, host);
  const probe = program.getSourceFile(PROBE)!;
  const diagnostics = ts.getPreEmitDiagnostics(program, probe);
  const unexpected = diagnostics.filter((d) => d.start === undefined);
  expect(unexpected.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  return diagnostics.map((d) => {
    const { line } = probe.getLineAndCharacterOfPosition(d.start!);
    const entry = lines[line - 1];
    return entry ? `${entry.type} <- ${entry.status}` : ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
}

describe("the SDK's types of the server's bodies", () => {
  it("src/server-types.ts is what scripts/server-types.ts writes from the server's schemas", async () => {
    expect(await readFile(SERVER_TYPES_FILE, "utf8")).toBe(renderServerTypes());
  });

  it("the order, payment, refund and coupon status types accept every status the server can return", () => {
    expect(Object.values(SERVER_STATUSES).flat()).toContain("partially_refunded");
    expect(refusedAssignments()).toEqual([]);
  }, 60_000);

  it("the same, for the typecheck: each is exactly the server's list", () => {
    expectTypeOf<OrderView["status"]>().toEqualTypeOf<
      (typeof orderResponseSchema.properties.status.enum)[number]
    >();
    expectTypeOf<MoneyOperationView["status"]>().toEqualTypeOf<
      (typeof operationResponseSchema.properties.status.enum)[number]
    >();
    expectTypeOf<RefundView["status"]>().toEqualTypeOf<
      (typeof refundResponseSchema.properties.status.enum)[number]
    >();
    expectTypeOf<CouponIssueView["status"]>().toEqualTypeOf<
      (typeof couponIssueResponseSchema.properties.status.enum)[number]
    >();
  });
});
