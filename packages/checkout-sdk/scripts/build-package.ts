// `pnpm build` (turbo's build task, npm's prepack): what the package ships, from nothing. dist/ is emptied, tsc
// emits the ESM and its .d.ts from src (tsconfig.build.json), and esbuild writes the one-file browser bundle.
// A stale file left in dist/ would be packed and installed, hence the clean start. Nothing is built from a
// src/server-types.ts that is no longer what the server's schemas write (scripts/server-types.ts).
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { BROWSER_BUNDLE_FILE, buildBrowserBundle } from "./browser-bundle.ts";
import { renderServerTypes, SERVER_TYPES_FILE } from "./server-types.ts";

const PACKAGE_DIR = new URL("../", import.meta.url);
const DIST = new URL("dist/", PACKAGE_DIR);

if ((await readFile(SERVER_TYPES_FILE, "utf8")) !== renderServerTypes()) {
  console.error(
    "src/server-types.ts differs from the server's schemas: pnpm --filter @floodgate/checkout-sdk generate",
  );
  process.exit(1);
}

await rm(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  cwd: fileURLToPath(PACKAGE_DIR),
  stdio: "inherit",
});

// tsc rewrites "./x.ts" to "./x.js" in the JavaScript it emits but not in the declarations, where a consumer's
// TypeScript would look for a .ts file the package does not ship.
for (const name of await readdir(DIST)) {
  if (!name.endsWith(".d.ts")) continue;
  const file = new URL(name, DIST);
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace(/(from\s+"\.\/[^"]+)\.ts"/g, '$1.js"'));
}

await mkdir(new URL(".", BROWSER_BUNDLE_FILE), { recursive: true });
await writeFile(BROWSER_BUNDLE_FILE, await buildBrowserBundle());
