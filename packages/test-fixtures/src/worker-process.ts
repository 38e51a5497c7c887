// Runs a real worker process (apps/worker/src/main.ts) so tests can SIGKILL it mid-batch.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Config } from "@floodgate/config";
import { spawnAppProcess } from "./app-process.ts";
import { configToEnv } from "./config-env.ts";

const WORKER_MAIN = fileURLToPath(new URL("../../../apps/worker/src/main.ts", import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the exit code or signal. */
  exited: Promise<number | string>;
  /** SIGTERM and wait: the worker finishes and acknowledges its batch. */
  stop(): Promise<void>;
  kill(): Promise<void>;
  output(): string;
}

export async function startWorkerProcess(
  config: Config,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const {
    child,
    exited,
    output: collected,
  } = spawnAppProcess(WORKER_MAIN, {
    ...configToEnv(config),
    LOG_LEVEL: "info",
    ...env,
  });
  // Ready once it logged that it consumes (its consumer group exists by then).
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (!collected().includes("worker consuming")) return;
      cleanup();
      resolve();
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`worker exited before it was ready:\n${collected()}`));
    };
    const cleanup = () => {
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
  return {
    child,
    exited,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    output: collected,
  };
}
