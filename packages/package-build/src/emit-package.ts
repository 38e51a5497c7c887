// The build every published package shares (the checkout SDK, @floodgate/node): what it ships, from nothing.
// tsc emits the ESM and its .d.ts from src by the package's own tsconfig.build.json into a fresh folder beside
// dist/ (a stale file left in dist/ would be packed and installed), which then takes dist/'s place by two
// renames. Emptying dist/ first left it missing for the seconds tsc runs, and the workspace imports
// @floodgate/node from dist/: a process starting then (a worker beside the image-layout test's build) failed.
import { execFileSync } from "node:child_process";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/**
 * Builds the package in `packageDir` (a directory URL ending in "/") into its dist/. `complete` adds what tsc
 * does not emit to the new folder (given as a URL ending in "/") before it becomes dist/.
 */
export async function emitPackage(
  packageDir: URL,
  complete: (next: URL) => Promise<void> = async () => {},
): Promise<void> {
  const dist = new URL("dist/", packageDir);
  const next = new URL(`dist.next-${process.pid}/`, packageDir);
  const previous = new URL(`dist.previous-${process.pid}/`, packageDir);
  await rm(next, { recursive: true, force: true });
  execFileSync(process.execPath, [TSC, "-p", "tsconfig.build.json", "--outDir", fileURLToPath(next)], {
    cwd: fileURLToPath(packageDir),
    stdio: "inherit",
  });
  // tsc rewrites "./x.ts" to "./x.js" in the JavaScript it emits but not in the declarations, where a
  // consumer's TypeScript would look for a .ts file the package does not ship.
  for (const name of await readdir(next, { recursive: true })) {
    if (!name.endsWith(".d.ts")) continue;
    const file = new URL(name, next);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/(from\s+"\.\.?\/[^"]+)\.ts"/g, '$1.js"'));
  }
  await complete(next);
  await rename(dist, previous).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(next, dist);
  await rm(previous, { recursive: true, force: true });
}
