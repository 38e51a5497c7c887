// A child process of one of our apps with its output collected (for assertions and for the error that says why
// it did not start), and its end as a promise.
import { type ChildProcess, spawn } from "node:child_process";

export interface AppProcess {
  child: ChildProcess;
  /** Resolves with the exit code or the signal. */
  exited: Promise<number | string>;
  output(): string;
}

export function spawnAppProcess(script: string, env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
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
  return { child, exited, output: () => output };
}
