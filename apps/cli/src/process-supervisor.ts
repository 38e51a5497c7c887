// Runs the intake and worker processes, restarts one that dies unexpectedly, and stops them all gracefully.
import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";

export interface ProcessSpec {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  /** Niceness (0 = normal, 19 = lowest priority). */
  nice?: number;
}

export class ProcessSupervisor {
  readonly #children = new Map<string, ChildProcess>();
  readonly #log: (line: string) => void;
  #stopping = false;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  start(spec: ProcessSpec, restarts = 0): void {
    const child = spawn(process.execPath, [spec.script], { env: spec.env, stdio: "inherit" });
    if (spec.nice && child.pid !== undefined) {
      try {
        setPriority(child.pid, spec.nice);
      } catch (error) {
        this.#log(
          `${spec.name}: could not lower its priority (${(error as Error).message}); running at normal priority`,
        );
      }
    }
    this.#children.set(spec.name, child);
    child.on("exit", (code, signal) => {
      this.#children.delete(spec.name);
      if (this.#stopping) return;
      if (code === 78) {
        this.#log(`${spec.name} refused its configuration; not restarting`);
        return;
      }
      const delay = Math.min(500 * 2 ** restarts, 10_000);
      this.#log(`${spec.name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
      setTimeout(() => !this.#stopping && this.start(spec, restarts + 1), delay).unref();
    });
  }

  /** SIGTERM to every child: intakes finish in-flight requests, workers finish and acknowledge their batch. */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.#stopping = true;
    const exits = [...this.#children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    );
    await Promise.all(exits);
  }
}
