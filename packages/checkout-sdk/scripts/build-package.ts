// `pnpm build` (turbo's build task, npm's prepack): what the package ships, from nothing. The shared build
// (@floodgate/package-build) emits the ESM and its .d.ts from src (tsconfig.build.json) into a new folder, where
// esbuild writes the one-file browser bundle, with the declarations of its "./browser" export beside it; then
// the folder replaces dist/.
// Nothing is built from a src/server-types.ts that is no longer what the server's schemas write
// (scripts/server-types.ts).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { emitPackage } from "@floodgate/package-build";
import { BROWSER_BUNDLE_FILE, BROWSER_TYPES_FILE, buildBrowserBundle } from "./browser-bundle.ts";
import { renderServerTypes, SERVER_TYPES_FILE } from "./server-types.ts";

if ((await readFile(SERVER_TYPES_FILE, "utf8")) !== renderServerTypes()) {
  console.error(
    "src/server-types.ts differs from the server's schemas: pnpm --filter @floodgate/checkout-sdk generate",
  );
  process.exit(1);
}

const packageDir = new URL("../", import.meta.url);
const dist = new URL("dist/", packageDir);
// Written into the new dist/ before it replaces the old one: the demo serves the bundle while tests build.
const inNext = (file: URL, next: URL) => new URL(file.href.slice(dist.href.length), next);
await emitPackage(packageDir, async (next) => {
  await mkdir(new URL(".", inNext(BROWSER_BUNDLE_FILE, next)), { recursive: true });
  await writeFile(inNext(BROWSER_BUNDLE_FILE, next), await buildBrowserBundle());
  // The bundle is the whole of src/index.ts, so its types are the package's own.
  await writeFile(inNext(BROWSER_TYPES_FILE, next), 'export * from "../index.js";\n');
});
