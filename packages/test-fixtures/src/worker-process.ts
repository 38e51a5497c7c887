// Runs a real worker process (apps/worker/src/main.ts) so tests can SIGKILL it mid-batch.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Config } from "@floodgate/config";
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
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: { ...process.env, ...configToEnv(config), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
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
  // Ready once it logged that it consumes (its consumer group exists by then).
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (!output.includes("worker consuming")) return;
      cleanup();
      resolve();
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`worker exited before it was ready:\n${output}`));
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
    output: () => output,
  };
}
