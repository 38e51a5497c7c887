// A published package as someone outside this monorepo gets it (the checkout SDK, @floodgate/node): `npm pack`,
// then a new project in a temporary folder that installs the tarball with npm, offline: the packages have no
// runtime dependencies, so no registry is needed. npm runs on the Node that is asked for (the system's Node 20
// proves the package installs there). Its own entry point, like ./headless-chromium: no Redis or Postgres.
// The pack skips prepack's build: the build empties dist/ first, and other test files running beside this one
// read dist/. `./floodgate test` builds before any test runs (turbo's build task).
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The machine's own Node (20 on the development VM), the first on PATH that is not the one running the tests
 * (which ./floodgate put first when the system's was older than 22.18); SYSTEM_NODE names another. */
export function systemNode(): string {
  if (process.env.SYSTEM_NODE) return process.env.SYSTEM_NODE;
  const dirs = (process.env.PATH ?? "").split(delimiter).concat("/usr/local/bin", "/usr/bin");
  const found = dirs
    .filter((dir) => dir && dir !== dirname(process.execPath))
    .map((dir) => join(dir, "node"))
    .find((file) => existsSync(file) && realpathSync(file) !== realpathSync(process.execPath));
  return found ?? process.execPath;
}

/** PATH with `node` (and the npm beside it, if any) taken from `nodeBinary` first. */
export function pathFor(nodeBinary: string): string {
  return [dirname(nodeBinary), process.env.PATH ?? ""].join(delimiter);
}

export interface PackedPackage {
  tarball: string;
  /** Every path the tarball holds, relative to the package. */
  files: string[];
  manifest: Record<string, unknown>;
}

/** Every file an `exports` map names ("./dist/index.js", "./dist/index.d.ts", ...). */
export function exportedFiles(exports: unknown): string[] {
  if (typeof exports === "string") return [exports];
  if (typeof exports !== "object" || exports === null) return [];
  return Object.values(exports).flatMap(exportedFiles);
}

/** The exports whose entry names no "types" declarations (./package.json aside: JSON needs none). */
export function untypedExports(exports: unknown): string[] {
  // `"exports": "./x.js"` or `{ "types": ..., "default": ... }` is the "." export alone.
  const paths =
    typeof exports === "object" &&
    exports !== null &&
    Object.keys(exports).every((key) => key.startsWith("."))
      ? exports
      : { ".": exports };
  return Object.entries(paths)
    .filter(([path, entry]) => path !== "./package.json" && !exportedFiles(entry).some(isDeclaration))
    .map(([path]) => path);
}

const isDeclaration = (file: string) => /\.d\.[cm]?ts$/.test(file);

/** The license this repository declares: root package.json's field and the LICENSE text a tarball must carry. */
export async function repoLicense(): Promise<{ name: string; text: string }> {
  const root = new URL("../../../", import.meta.url);
  const manifest = JSON.parse(await readFile(new URL("package.json", root), "utf8"));
  return { name: manifest.license, text: await readFile(new URL("LICENSE", root), "utf8") };
}

/** `npm pack` of the package in `packageDir` (a directory URL) into the folder `into`. */
export async function packPackage(packageDir: URL, into: string): Promise<PackedPackage> {
  const dir = fileURLToPath(packageDir);
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  // Said here rather than as a tarball that installs and then fails to import.
  const missing = exportedFiles(manifest.exports).filter((file) => !existsSync(join(dir, file)));
  if (missing.length > 0) {
    throw new Error(
      `${manifest.name} is not built (${missing.join(", ")} missing): pnpm exec turbo run build (./floodgate test and start do)`,
    );
  }
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", into], {
    cwd: dir,
    env: { ...process.env, PATH: pathFor(process.execPath), npm_config_loglevel: "error" },
  });
  const [packed] = JSON.parse(stdout);
  return {
    tarball: join(into, packed.filename),
    files: packed.files.map((file: { path: string }) => file.path),
    manifest,
  };
}

export interface ScratchProject {
  dir: string;
  /** Runs `node <args>` there on the given Node binary. */
  node(nodeBinary: string, args: string[], env?: Record<string, string>): Promise<{ stdout: string }>;
  write(name: string, text: string): Promise<void>;
  remove(): Promise<void>;
}

/** A new ES module project with only the tarball installed, by npm on `nodeBinary`. */
export async function scratchProject(tarball: string, nodeBinary: string): Promise<ScratchProject> {
  const dir = await mkdtemp(join(tmpdir(), "floodgate-scratch-"));
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  const env = { ...process.env, PATH: pathFor(nodeBinary), npm_config_loglevel: "error" };
  await run("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund"], { cwd: dir, env });
  return {
    dir,
    node: (binary, args, extra = {}) =>
      run(binary, args, { cwd: dir, env: { ...process.env, PATH: pathFor(binary), ...extra } }),
    write: (name, text) => writeFile(join(dir, name), text),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
