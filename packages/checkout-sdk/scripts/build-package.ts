// `pnpm build` (turbo's build task, npm's prepack): what the package ships, from nothing. The shared build
// (@floodgate/package-build) empties dist/ and emits the ESM and its .d.ts from src (tsconfig.build.json); then
// esbuild writes the one-file browser bundle, with the declarations of its "./browser" export beside it.
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

await emitPackage(new URL("../", import.meta.url));
await mkdir(new URL(".", BROWSER_BUNDLE_FILE), { recursive: true });
await writeFile(BROWSER_BUNDLE_FILE, await buildBrowserBundle());
// The bundle is the whole of src/index.ts, so its types are the package's own.
await writeFile(BROWSER_TYPES_FILE, 'export * from "../index.js";\n');
