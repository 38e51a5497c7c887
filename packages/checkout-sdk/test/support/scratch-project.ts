// The SDK as someone outside this monorepo gets it: `npm pack`, then a new project in a temporary folder that
// installs the tarball with npm, offline: the package has no runtime dependencies, so no registry is needed. npm
// runs on the Node that is asked for (the system's Node 20 proves the package installs there).
// The pack skips prepack's build: the build empties dist/ first, and other test files running beside this one
// read dist/browser/. `./floodgate test` builds before any test runs (turbo's build task).
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { readBrowserBundle } from "../../scripts/browser-bundle.ts";

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

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

export async function packPackage(into: string): Promise<PackedPackage> {
  await readBrowserBundle(); // dist/ is there, or this says how to build it
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", into], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, PATH: pathFor(process.execPath), npm_config_loglevel: "error" },
  });
  const [packed] = JSON.parse(stdout);
  const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, "package.json"), "utf8"));
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
  const dir = await mkdtemp(join(tmpdir(), "floodgate-sdk-scratch-"));
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
