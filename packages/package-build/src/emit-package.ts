// The build every published package shares (the checkout SDK, @floodgate/node): what it ships, from nothing.
// dist/ is emptied first, since a stale file left there would be packed and installed; then tsc emits the ESM
// and its .d.ts from src by the package's own tsconfig.build.json.
import { execFileSync } from "node:child_process";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** Builds the package in `packageDir` (a directory URL ending in "/") into its dist/. */
export async function emitPackage(packageDir: URL): Promise<void> {
  const dist = new URL("dist/", packageDir);
  await rm(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [TSC, "-p", "tsconfig.build.json"], {
    cwd: fileURLToPath(packageDir),
    stdio: "inherit",
  });
  // tsc rewrites "./x.ts" to "./x.js" in the JavaScript it emits but not in the declarations, where a
  // consumer's TypeScript would look for a .ts file the package does not ship.
  for (const name of await readdir(dist, { recursive: true })) {
    if (!name.endsWith(".d.ts")) continue;
    const file = new URL(name, dist);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/(from\s+"\.\.?\/[^"]+)\.ts"/g, '$1.js"'));
  }
}
