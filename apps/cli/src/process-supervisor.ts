// Runs the intake and worker processes, restarts one that dies unexpectedly, and stops them all gracefully.
import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import { doublingDelayMs } from "@floodgate/backoff";

export interface ProcessSpec {
  name: string;
  script: string;
  /** Node's own options for the child, before its script (e.g. the intake's young-generation size). */
  nodeOptions?: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Niceness (0 = normal, 19 = lowest priority). */
  nice?: number;
  /** The variable that sets the child's metrics port, named when the child exits because it is taken. */
  metricsPortVariable?: string;
}

/**
 * The exit code of an intake or worker whose metrics port is taken (packages/metrics' metrics-listener.ts);
 * it logged which port.
 */
export const EXIT_METRICS_PORT_IN_USE = 75;

export interface Backoff {
  /** The first restart's delay; each one after doubles it, up to maxMs. */
  firstMs: number;
  maxMs: number;
  /** A child that ran this long was healthy: its next restart starts from firstMs again. */
  healthyAfterMs: number;
}

const DEFAULT_BACKOFF: Backoff = { firstMs: 500, maxMs: 30_000, healthyAfterMs: 60_000 };

export class ProcessSupervisor {
  readonly #children = new Map<string, ChildProcess>();
  readonly #log: (line: string) => void;
  readonly #backoff: Backoff;
  #stopping = false;

  constructor(log: (line: string) => void, backoff: Partial<Backoff> = {}) {
    this.#log = log;
    this.#backoff = { ...DEFAULT_BACKOFF, ...backoff };
  }

  start(spec: ProcessSpec, restarts = 0): void {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...(spec.nodeOptions ?? []), spec.script], {
      env: spec.env,
      stdio: "inherit",
    });
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
      const { firstMs, maxMs, healthyAfterMs } = this.#backoff;
      const attempt = Date.now() - startedAt >= healthyAfterMs ? 0 : restarts;
      const delay = doublingDelayMs({ firstMs, maxMs }, attempt + 1); // here the first restart is attempt 0
      const why =
        code === EXIT_METRICS_PORT_IN_USE
          ? `its metrics port is in use (${spec.metricsPortVariable ?? "its metrics port variable"}, see its line above)`
          : `exited (${signal ?? `code ${code}`})`;
      this.#log(
        `${spec.name} ${why}; restarting in ${delay} ms (backing off: each restart waits twice as long, up to ${maxMs} ms)`,
      );
      setTimeout(() => !this.#stopping && this.start(spec, attempt + 1), delay).unref();
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
