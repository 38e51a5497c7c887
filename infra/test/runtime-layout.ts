// The production image's /app without Docker: infra/docker/assemble-runtime.sh (the script the Dockerfile's
// build stage runs) into a folder, and its entry point run from there as the image runs it.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./deploy-files.ts";

// The image's `node` is Node 24 (the one running these tests); a system node first on PATH may be older.
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;

/** Runs the Dockerfile's assembly step from the repository root into `out` (empty or missing). */
export async function assembleRuntime(out: string): Promise<void> {
  await promisify(execFile)(join(ROOT, "infra/docker/assemble-runtime.sh"), [out], {
    cwd: ROOT,
    env: { ...process.env, PATH },
    maxBuffer: 16 * 1024 * 1024,
  });
}

export interface ImageProcess {
  child: ChildProcess;
  exited: Promise<number | string>;
  output(): string;
}

/**
 * `docker run floodgate <command> [args]`, as far as a folder can: the entry point from WORKDIR /app (`layout`),
 * with only the given environment (a container starts with no other variable but PATH and HOME).
 */
export function runImageCommand(
  layout: string,
  args: string[],
  env: Record<string, string>,
  options: { init?: boolean } = {},
): ImageProcess {
  const entrypoint = join(layout, "infra/docker/entrypoint.sh");
  // With init, as `docker run --init`: a parent process (here a shell, in its own process group) that stays
  // PID "1" while the entry point's node runs as its child.
  const [command, argv] = options.init
    ? ["sh", ["-c", '"$0" "$@"; exit $?', entrypoint, ...args]]
    : [entrypoint, args];
  const child = spawn(command, argv, {
    cwd: layout,
    env: { PATH, HOME: layout, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.init === true,
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code ?? -1)),
  );
  return { child, exited, output: () => output };
}

/** Resolves once the process's output contains `text`; rejects if it exits first. */
export function outputContains(run: ImageProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!run.output().includes(text)) return;
      cleanup();
      resolve();
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`exited before printing "${text}":\n${run.output()}`));
    };
    const cleanup = () => {
      run.child.stdout!.off("data", check);
      run.child.stderr!.off("data", check);
      run.child.off("exit", onExit);
    };
    run.child.stdout!.on("data", check);
    run.child.stderr!.on("data", check);
    run.child.once("exit", onExit);
    check();
  });
}

/** The packages a pnpm node_modules holds, by name: its virtual store's folders (`name@version[_peers]`). */
export function installedPackages(nodeModules: string): Set<string> {
  return new Set(
    readdirSync(join(nodeModules, ".pnpm"))
      .filter((entry) => entry.includes("@") && entry !== "lock.yaml")
      .map((entry) => {
        const scoped = entry.startsWith("@");
        const name = scoped ? entry.replace("+", "/") : entry;
        return name.slice(0, name.indexOf("@", scoped ? 1 : 0));
      }),
  );
}

/** HEALTHCHECK's command, run from the layout against the process `pid` (the image asks PID 1). */
export async function healthcheck(layout: string, pid: number): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(layout, "infra/docker/healthcheck.ts"), String(pid)],
      { cwd: layout, env: { PATH } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}
