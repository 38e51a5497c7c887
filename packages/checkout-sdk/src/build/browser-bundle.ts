// The SDK as a browser loads it: one minified ES module, bundled by esbuild from src/index.ts. The size script
// and its test measure this exact text, and the intake's demo page is served it. Build-time only: nothing the SDK
// runs imports this file (esbuild is a devDependency).
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { build } from "esbuild";

const ENTRY = fileURLToPath(new URL("../index.ts", import.meta.url));

/** The minified ESM text of the whole SDK. */
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

/** Bytes of the bundle minified and then gzipped at level 9: the size the issue budgets (under 6 KB). */
export async function measureBundleSize(): Promise<{ minifiedBytes: number; gzippedBytes: number }> {
  const text = await buildBrowserBundle();
  const gzipped = await promisify(gzip)(text, { level: 9 });
  return { minifiedBytes: Buffer.byteLength(text), gzippedBytes: gzipped.length };
}
