// The SDK outside this monorepo: packed by `npm pack`, installed offline from the tarball into a new project,
// imported and type-checked there, and the README's complete example run verbatim from it against a real intake
// and worker: in Node 20 (the system's) and 24, and bundled by esbuild into a page in headless Chromium. The
// example's server-side steps (the shopper's token, the wallet's top-up) are done by a shop server of the
// test's own with the server key (support/example-shop-server.ts), so the first run buys.
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { chromiumPath, launchChromium } from "@floodgate/test-fixtures/headless-chromium";
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
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "../src/index.ts";
import { createProduct } from "./support/catalog-admin.ts";
import { type ExampleShopServer, startExampleShopServer } from "./support/example-shop-server.ts";
import { readmeExampleFiles } from "./support/readme-example.ts";
import { ADMIN_API_KEY } from "./support/room-admin.ts";

/** The machine's own Node (20 on the development VM): what a shop's older service would run. */
const SYSTEM_NODE = systemNode();
const versionOf = (node: string) => execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
const THIS_NODE = process.execPath;
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();

let shop: ExampleShopServer;
let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;
let packDir: string;
let packed: PackedPackage;
let project: ScratchProject;

beforeAll(async () => {
  shop = await startExampleShopServer();
  env = await createTestEnvironment("checkout-sdk-installed", {
    env: { ADMIN_API_KEY, CORS_ORIGINS: shop.origin },
  });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
  shop.useFloodgate(intake.baseUrl, env.serverKey);
  packDir = await mkdtemp(join(tmpdir(), "floodgate-sdk-pack-"));
  packed = await packPackage(new URL("../", import.meta.url), packDir);
  project = await scratchProject(packed.tarball, SYSTEM_NODE);
  for (const [name, text] of Object.entries(await readmeExampleFiles())) await project.write(name, text);
});

afterAll(async () => {
  await project?.remove();
  if (packDir) await rm(packDir, { recursive: true, force: true });
  await worker?.stop();
  await intake?.kill();
  await shop?.close();
  await env?.cleanup();
});

const run = promisify(execFile);
const serverCheckout = () => createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey });

/** Runs the README's buy.js on `node` as `shopper`, signed in at the shop; resolves with what it printed. */
async function buyInNode(node: string, shopper: string, productId: string) {
  shop.signIn(shopper);
  const { stdout } = await project.node(node, ["buy.js", productId], {
    FLOODGATE_URL: intake.baseUrl,
    SHOP_URL: shop.origin,
  });
  return stdout.trim().split("\n");
}

describe("the npm pack tarball", () => {
  it("holds the built package and nothing else: no sources, no tests, no runtime dependencies", () => {
    for (const file of packed.files)
      expect(file).toMatch(/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/);
    expect(packed.files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/browser/checkout-sdk.js"]),
    );
    expect(packed.manifest).not.toHaveProperty("dependencies");
    expect(packed.manifest).not.toHaveProperty("private");
    expect(packed.manifest.exports).toMatchObject({
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./browser": { types: "./dist/browser/checkout-sdk.d.ts", default: "./dist/browser/checkout-sdk.js" },
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
    const installed = join(project.dir, "node_modules/@floodgate/checkout-sdk/LICENSE");
    expect(await readFile(installed, "utf8")).toBe(license.text);
  });

  it.each([
    [`the system's Node ${versionOf(SYSTEM_NODE)}`, SYSTEM_NODE],
    [`Node ${versionOf(THIS_NODE)}`, THIS_NODE],
  ])("installs offline and imports on %s", async (_name, node) => {
    expect(Number(versionOf(node).slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
    const { stdout } = await project.node(node, [
      "--input-type=module",
      "-e",
      'const sdk = await import("@floodgate/checkout-sdk"); console.log(Object.keys(sdk).sort().join(" "))',
    ]);
    expect(stdout.trim().split(" ")).toEqual(
      expect.arrayContaining(["createCheckout", "FloodgateError", "RateLimitError", "ConnectionError"]),
    );
  });

  it.each([
    "nodenext",
    "bundler",
  ])("type-checks in a TypeScript project (moduleResolution %s)", async (resolution) => {
    await project.write(
      "consumer.ts",
      `import { type Checkout, createCheckout, type OrderView, RateLimitError } from "@floodgate/checkout-sdk";
import * as browserSdk from "@floodgate/checkout-sdk/browser";
export const fromTheBundle: Checkout = browserSdk.createCheckout({ baseUrl: "https://api.shop.example" });
const checkout: Checkout = createCheckout({ baseUrl: "https://api.shop.example", timeoutMs: 5000 });
const order = checkout.placeOrder({ items: [{ productId: "prd_1", quantity: 1 }], signal: new AbortController().signal });
export const outcome = order.result().then(
  (view: OrderView) => view.status,
  (error: unknown) => error instanceof RateLimitError && error.retryAfterSeconds,
);
// @ts-expect-error: amount is a number
checkout.pay({ amount: "12" });
`,
    );
    const module = resolution === "bundler" ? "esnext" : "nodenext";
    await run(
      THIS_NODE,
      [
        TSC,
        "--noEmit",
        "--strict",
        "--module",
        module,
        "--moduleResolution",
        resolution,
        "--target",
        "es2022",
      ].concat(["--lib", "es2023,dom", "consumer.ts"]),
      { cwd: project.dir, env: { ...process.env, PATH: pathFor(THIS_NODE) } },
    );
  });
});

describe("the README example, installed", () => {
  it(`buys on the first run in the system's Node ${versionOf(SYSTEM_NODE)}: the shop tops the wallet up, the order is paid`, async () => {
    const productId = await createProduct(intake.baseUrl, 1200, 3);
    const said = await buyInNode(SYSTEM_NODE, "node-shopper", productId);
    expect(said.at(-1)).toMatch(/^Paid: pay_\w+\. 2 left\.$/);
    expect(shop.topUps).toContainEqual({ shopper: "node-shopper", amount: 1200 });
    expect(await serverCheckout().wallet("node-shopper")).toMatchObject({ balance: 0 });
  });

  it("buys in Node 24 (listening over WebSockets)", async () => {
    const productId = await createProduct(intake.baseUrl, 700, 5);
    const said = await buyInNode(THIS_NODE, "node24-shopper", productId);
    expect(said.at(-1)).toMatch(/^Paid: pay_\w+\. 4 left\.$/);
  });

  it("cancels its order when it cannot pay, so the unit is on sale again at once", async () => {
    const productId = await createProduct(intake.baseUrl, 900, 1);
    shop.failTopUps = true;
    try {
      const failed = await buyInNode(SYSTEM_NODE, "declined-shopper", productId).catch((e: Error) => e);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error & { stderr: string }).stderr).toContain("the shop's /top-ups answered 402");
    } finally {
      shop.failTopUps = false;
    }
    // The example waited for the cancel to end the order before it gave up.
    expect(await serverCheckout().product(productId)).toMatchObject({ available: 1 });
  });

  it("bundled by esbuild from the installed package, buys in a page in headless Chromium", async () => {
    const bundled = await build({
      entryPoints: [join(project.dir, "checkout-page.js")],
      absWorkingDir: project.dir,
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
    });
    shop.page.bundle = bundled.outputFiles[0]!.text;
    expect(shop.page.bundle).not.toMatch(/^import /m);
    const productId = await createProduct(intake.baseUrl, 500, 2);
    shop.page.html = `<!doctype html><meta charset="utf-8"><title>shop</title>
<button id="buy" data-product="${productId}" data-floodgate-url="${intake.baseUrl}">Buy now</button>
<p id="status" aria-live="polite"></p>
<script type="module" src="/checkout.bundle.js"></script>`;
    shop.signIn("page-shopper");

    const browser = await launchChromium(executablePath);
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(shop.origin);
      await page.click("#buy");
      await page.waitForFunction(
        () => /^(Paid|Something|Sold|Your|Please)/.test(document.querySelector("#status")?.textContent ?? ""),
        null,
        {
          timeout: 30_000,
        },
      );
      expect(await page.textContent("#status")).toMatch(/^Paid: pay_\w+\. 1 left\.$/);
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
    expect(shop.topUps).toContainEqual({ shopper: "page-shopper", amount: 500 });
  });
});
