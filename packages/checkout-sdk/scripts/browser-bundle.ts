// The SDK as a browser loads it without a bundler: one minified ES module, bundled by esbuild from src/index.ts
// at build time (scripts/build-package.ts writes it to dist/browser/). The package ships it, the intake serves it
// at /demo/checkout-sdk.js as a static file, and the size script and test measure that very file.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { build } from "esbuild";

const ENTRY = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Where the build puts the bundle (the package's "./browser" export). */
export const BROWSER_BUNDLE_FILE = new URL("../dist/browser/checkout-sdk.js", import.meta.url);
/** Its declarations, beside it (the "./browser" export's types). */
export const BROWSER_TYPES_FILE = new URL("../dist/browser/checkout-sdk.d.ts", import.meta.url);

/** The minified ESM text of the whole SDK, as the build writes it. */
export async function buildBrowserBundle(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    legalComments: "none",
  });
  return result.outputFiles[0]!.text;
}

/** The built bundle; a missing one says how to build it rather than ENOENT. */
export async function readBrowserBundle(): Promise<string> {
  return readFile(BROWSER_BUNDLE_FILE, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    throw new Error(
      `${fileURLToPath(BROWSER_BUNDLE_FILE)} is missing: build the SDK first (pnpm exec turbo run build; ./floodgate test and start do)`,
    );
  });
}

/** Bytes of the built bundle, and gzipped at level 9: the size the issue budgets (under 6 KB). */
export async function measureBundleSize(): Promise<{ minifiedBytes: number; gzippedBytes: number }> {
  const text = await readBrowserBundle();
  const gzipped = await promisify(gzip)(text, { level: 9 });
  return { minifiedBytes: Buffer.byteLength(text), gzippedBytes: gzipped.length };
}
