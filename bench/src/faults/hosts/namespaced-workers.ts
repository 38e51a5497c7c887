// The workers of `faults --hosts` on a test host of their own: `node apps/worker/src/main.ts` started with
// `ip netns exec` (which execs: the pid is the worker's), one process per worker as `./floodgate start` runs
// them, with the system's environment, yielding the CPU as start has them do (WORKER_NICE). A worker that
// exits is started again after a second, as start's supervisor does. Output goes to the run's log.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { setPriority } from "node:os";
import { REPO_ROOT } from "../../harness/child-service.ts";
import type { TestHost } from "./test-network.ts";

const STOP_WAIT_MS = 30_000;
const RESTART_DELAY_MS = 1_000;
const DEFAULT_NICE = 10;

export interface NamespacedWorkers {
  host: TestHost;
  /** The running workers' pids. */
  pids(): number[];
  /** How many times a worker exited and was started again. */
  restarts(): number;
  /** SIGTERM (they finish the batch in flight), SIGKILL after 30 s. */
  stop(): Promise<void>;
}

export function startNamespacedWorkers(options: {
  host: TestHost;
  count: number;
  environment: Record<string, string>;
  logFile: string;
}): NamespacedWorkers {
  const log = createWriteStream(options.logFile, { flags: "a" });
  const children: (ChildProcess | null)[] = Array.from({ length: options.count }, () => null);
  let stopping = false;
  let restarts = 0;
  const nice = Number(options.environment.WORKER_NICE ?? DEFAULT_NICE);
  const start = (index: number) => {
    const { file, args } = options.host.command(process.execPath, ["apps/worker/src/main.ts"]);
    const child = spawn(file, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.environment, FLOODGATE_WORKER_INDEX: String(index) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children[index] = child;
    for (const stream of [child.stdout, child.stderr])
      stream!.on("data", (chunk: Buffer) => log.write(chunk));
    if (nice > 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, nice);
      } catch {
        // exited already: the exit handler starts it again
      }
    }
    child.once("exit", (code, signal) => {
      if (stopping) return;
      log.write(
        `--- worker ${index} on ${options.host.namespace} exited (${code ?? signal}); starting it again\n`,
      );
      restarts++;
      setTimeout(() => {
        if (!stopping) start(index);
      }, RESTART_DELAY_MS);
    });
  };
  log.write(`\n--- ${new Date().toISOString()} ${options.count} workers on ${options.host.namespace}\n`);
  for (let index = 0; index < options.count; index++) start(index);
  return {
    host: options.host,
    pids: () =>
      children.flatMap((child) => (child?.pid !== undefined && child.exitCode === null ? [child.pid] : [])),
    restarts: () => restarts,
    async stop() {
      stopping = true;
      await Promise.all(
        children.map(async (child) => {
          if (child === null || child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, "exit");
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_WAIT_MS);
          await exited;
          clearTimeout(timer);
        }),
      );
      log.end();
    },
  };
}
