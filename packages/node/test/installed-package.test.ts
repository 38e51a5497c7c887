// @floodgate/node outside this monorepo: packed by `npm pack`, installed offline from the tarball into a new
// project, a delivery signed by the worker's own signWebhook verified there with the README's import (and a
// waiting room's shuffle proof recomputed as the server orders it), in
// Node 20 (the system's, which cannot run TypeScript at all) and 24 (which refuses TypeScript under
// node_modules); type-checked there too.
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  exportedFiles,
  type PackedPackage,
  packPackage,
  pathFor,
  repoLicense,
  type ScratchProject,
  scratchProject,
  systemNode,
  untypedExports,
} from "@floodgate/test-fixtures/packed-package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shuffleCommitment, shuffleOrder, signStandardWebhook, signWebhook } from "../src/index.ts";

/** The machine's own Node (20 on the development VM): what a shop's older service would run. */
const SYSTEM_NODE = systemNode();
const versionOf = (node: string) => execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
const THIS_NODE = process.execPath;
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// The consumer's Node types (a shop's server project has them; the package's declarations name Buffer).
const NODE_TYPES_ROOT = fileURLToPath(new URL("../../../node_modules/@types", import.meta.url));

// A shop's webhook handler, reduced to the README's call: the delivery comes in the environment, the outcome
// goes out as one JSON line.
const RECEIVER = `import { verifyWebhook, WebhookVerificationError } from "@floodgate/node";
const { PAYLOAD: payload, HEADER: header, HEADERS: headers, SECRET: secret } = process.env;
try {
  const options = headers ? { payload, headers: JSON.parse(headers), secret } : { payload, header, secret };
  console.log(JSON.stringify({ verified: verifyWebhook(options) }));
} catch (error) {
  if (!(error instanceof WebhookVerificationError)) throw error;
  console.log(JSON.stringify({ refused: error.code }));
}
`;

// Someone checking a drop: the proof as GET /v1/rooms/:roomId/shuffle-proof answered it, in the environment.
const SHUFFLE_CHECKER = `import { ShuffleProofError, verifyShuffleProof } from "@floodgate/node";
try {
  console.log(JSON.stringify({ order: verifyShuffleProof(JSON.parse(process.env.PROOF)) }));
} catch (error) {
  if (!(error instanceof ShuffleProofError)) throw error;
  console.log(JSON.stringify({ refused: error.code }));
}
`;

const secret = "whsec_installed_package_test";
const event = {
  id: "evt_installed_1",
  type: "payment.succeeded",
  createdAt: "2026-11-28T00:00:00.000Z",
  data: { paymentId: "pay_1", amount: 1200 },
};
const payload = JSON.stringify(event);

let packDir: string;
let packed: PackedPackage;
let project: ScratchProject;

beforeAll(async () => {
  packDir = await mkdtemp(join(tmpdir(), "floodgate-node-pack-"));
  packed = await packPackage(new URL("../", import.meta.url), packDir);
  project = await scratchProject(packed.tarball, SYSTEM_NODE);
  await project.write("receive-webhook.js", RECEIVER);
  await project.write("check-shuffle.js", SHUFFLE_CHECKER);
});

afterAll(async () => {
  await project?.remove();
  if (packDir) await rm(packDir, { recursive: true, force: true });
});

const run = promisify(execFile);

/** What receive-webhook.js made of a delivery, on `node`. */
async function receive(
  node: string,
  delivery: { payload: string; header?: string; headers?: Record<string, string> },
  withSecret = secret,
) {
  const { stdout } = await project.node(node, ["receive-webhook.js"], {
    PAYLOAD: delivery.payload,
    ...(delivery.header ? { HEADER: delivery.header } : {}),
    ...(delivery.headers ? { HEADERS: JSON.stringify(delivery.headers) } : {}),
    SECRET: withSecret,
  });
  return JSON.parse(stdout);
}

describe("the npm pack tarball of @floodgate/node", () => {
  it("holds the built package and nothing else: no sources, no tests, no runtime dependencies", () => {
    for (const file of packed.files)
      expect(file).toMatch(/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/);
    expect(packed.files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts"]));
    expect(packed.manifest).not.toHaveProperty("dependencies");
    expect(packed.manifest).not.toHaveProperty("private");
    expect(packed.manifest.exports).toEqual({
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    });
  });

  it("has types for every export, and every file its exports name is in the tarball", () => {
    expect(untypedExports(packed.manifest.exports)).toEqual([]);
    const named = exportedFiles(packed.manifest.exports).map((file) => file.replace(/^\.\//, ""));
    expect(packed.files).toEqual(expect.arrayContaining(named));
  });

  it("carries the repo's license: the license field and the LICENSE file", async () => {
    const license = await repoLicense();
    expect(packed.manifest.license).toBe(license.name);
    expect(packed.files).toContain("LICENSE");
    const installed = join(project.dir, "node_modules/@floodgate/node/LICENSE");
    expect(await readFile(installed, "utf8")).toBe(license.text);
  });

  it.each([
    [`the system's Node ${versionOf(SYSTEM_NODE)}`, SYSTEM_NODE],
    [`Node ${versionOf(THIS_NODE)}`, THIS_NODE],
  ])("installed, verifies what Floodgate's worker signs, and refuses a tampered body, on %s", async (_name, node) => {
    expect(Number(versionOf(node).slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
    const header = signWebhook({ payload, secret });
    expect(await receive(node, { payload, header })).toEqual({ verified: event });
    const tampered = payload.replace("1200", "9999");
    expect(await receive(node, { payload: tampered, header })).toEqual({ refused: "bad_signature" });
    // Standard Webhooks, from the request's headers.
    const standardSecret = `whsec_${Buffer.alloc(24, 3).toString("base64")}`;
    const headers = signStandardWebhook({ id: event.id, payload, secret: standardSecret });
    expect(await receive(node, { payload, headers }, standardSecret)).toEqual({ verified: event });
    expect(await receive(node, { payload: tampered, headers }, standardSecret)).toEqual({
      refused: "bad_signature",
    });
  });

  it.each([
    [`the system's Node ${versionOf(SYSTEM_NODE)}`, SYSTEM_NODE],
    [`Node ${versionOf(THIS_NODE)}`, THIS_NODE],
  ])("installed, recomputes a shuffle proof's order as the server computes it, on %s", async (_name, node) => {
    const seed = "ab".repeat(32);
    const tickets = Array.from(
      { length: 20 },
      (_, i) => `tkt_01JD0000000000000000000${String(i).padStart(3, "0")}`,
    );
    const proof = { commitment: shuffleCommitment(seed), seed, tickets };
    const { stdout } = await project.node(node, ["check-shuffle.js"], { PROOF: JSON.stringify(proof) });
    expect(JSON.parse(stdout)).toEqual({ order: shuffleOrder({ seed, tickets }) });
    const forged = { ...proof, seed: "cd".repeat(32) };
    const refused = await project.node(node, ["check-shuffle.js"], { PROOF: JSON.stringify(forged) });
    expect(JSON.parse(refused.stdout)).toEqual({ refused: "commitment_mismatch" });
  });

  it.each([
    "nodenext",
    "bundler",
  ])("type-checks in a TypeScript project (moduleResolution %s)", async (resolution) => {
    await project.write(
      "consumer.ts",
      `import { type WebhookEvent, verifyWebhook, WebhookVerificationError } from "@floodgate/node";
import { type ShuffleProof, ShuffleProofError, type ShuffleProofErrorCode, verifyShuffleProof } from "@floodgate/node";
export function receive(body: Buffer, header: string | undefined): WebhookEvent<{ amount: number }> | string {
  try {
    return verifyWebhook<{ amount: number }>({ payload: body, header, secret: "whsec_x", toleranceSeconds: 60 });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}
export const fromHeaders = (body: string, headers: Record<string, string | string[] | undefined>) =>
  verifyWebhook({ payload: body, headers, secret: "whsec_x" }).id;
// @ts-expect-error: the secret is a string
verifyWebhook({ payload: "{}", header: undefined, secret: 42 });
export function admittedOrder(proof: ShuffleProof): string[] | ShuffleProofErrorCode {
  try {
    return verifyShuffleProof(proof);
  } catch (error) {
    if (error instanceof ShuffleProofError) return error.code;
    throw error;
  }
}
// @ts-expect-error: a proof's tickets are ids, not numbers
verifyShuffleProof({ commitment: "", seed: null, tickets: [1, 2] });
`,
    );
    const module = resolution === "bundler" ? "esnext" : "nodenext";
    await run(
      THIS_NODE,
      [TSC, "--noEmit", "--strict", "--module", module, "--moduleResolution", resolution].concat(
        ["--target", "es2022", "--lib", "es2023", "--types", "node", "--typeRoots", NODE_TYPES_ROOT],
        ["consumer.ts"],
      ),
      { cwd: project.dir, env: { ...process.env, PATH: pathFor(THIS_NODE) } },
    );
  });
});
