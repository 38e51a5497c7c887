// Every answer a test reads from an in-process intake is held against the served OpenAPI document: the intake's
// tests and the workers' (their clients: intake-client, refund-client, coupon-client, ...) all send through
// documentedInject. A test that called inject itself would read answers nobody checks, and a drift between the
// server and the document could pass the suite; this finds such a call in the folders that build the intake.
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

/** The test folders whose files build the intake in process (buildApp): the rest reach a process over HTTP. */
const TEST_FOLDERS = ["apps/intake/test", "apps/worker/test"];

/** The only files that call inject, and why each may. */
const MAY_INJECT: Record<string, string> = {
  "apps/intake/test/support/intake-test-kit.ts": "documentedInject: the inject every answer is checked after",
  "apps/intake/test/support/openapi-contract.ts": "servedDocument reads /openapi.json, the document itself",
  "apps/intake/test/lazy-request-logger.test.ts": "a bare Fastify with the intake's logger, no intake route",
};

async function typeScriptFiles(folder: string): Promise<string[]> {
  const entries = await readdir(new URL(folder, root), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => `${entry.parentPath.slice(new URL(root).pathname.length)}/${entry.name}`)
    .sort();
}

describe("answers read from an in-process intake", () => {
  it("go through documentedInject: no test file calls inject but the kit's", async () => {
    const injecting: string[] = [];
    for (const folder of TEST_FOLDERS) {
      for (const file of await typeScriptFiles(folder)) {
        const source = await readFile(new URL(file, root), "utf8");
        if (/\.inject\s*\(/.test(source)) injecting.push(file);
      }
    }
    // Equal, not contained: an entry whose file no longer injects is removed rather than left to excuse a new one.
    expect(injecting.sort()).toEqual(Object.keys(MAY_INJECT).sort());
  });
});
