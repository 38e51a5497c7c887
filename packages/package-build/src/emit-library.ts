// The build of the workspace's private libraries (config, db, queue, ...): JavaScript for the production image.
// In the repository Node runs their TypeScript from src/ (a workspace link resolves outside node_modules), but
// the image's layout (`pnpm deploy`, infra/docker/assemble-runtime.sh) copies them under node_modules, where Node
// refuses to strip types. Their package.json maps the "floodgate-dist" condition, which the image's entry point
// sets, to dist/; everything else (tests, typecheck, ./floodgate) keeps reading src/.
import { execFileSync } from "node:child_process";
import { cp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** Builds the library in `packageDir` (a directory URL ending in "/") into its dist/, from nothing. */
export async function emitLibrary(packageDir: URL): Promise<void> {
  const dist = new URL("dist/", packageDir);
  // A stale file (a module since deleted from src/) would still be deployed and importable.
  await rm(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [TSC, "-p", "tsconfig.build.json"], {
    cwd: fileURLToPath(packageDir),
    stdio: "inherit",
  });
  // What a module reads beside itself at run time (the Redis scripts' .lua files) goes where its .js now is.
  const src = new URL("src/", packageDir);
  for (const entry of await readdir(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".ts")) continue;
    const relative = `${entry.parentPath}/${entry.name}`.slice(fileURLToPath(src).length);
    await cp(new URL(relative, src), new URL(relative, dist));
  }
}
