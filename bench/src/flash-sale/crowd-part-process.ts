// Part 0's handle on another part of the crowd (crowd-parts.ts): a child process of the bench running
// crowd-part-entry.ts. Join answers for its shoppers are sent a batch per turn of the bench's loop, as the
// join thread sends them here; its report comes back when asked, after the sale.
import { type ChildProcess, fork } from "node:child_process";
import type {
  CrowdPart,
  CrowdPartReport,
  CrowdPartSpec,
  FromCrowdPart,
  RemoteCrowdPart,
  ToCrowdPart,
} from "./crowd-parts.ts";
import type { JoinAnswer } from "./join-thread-entry.ts";

/** How long a closed part has to end before it is killed. */
const CLOSE_GRACE_MS = 5000;
/** How long part 0 waits for a part's report: it is a copy of what the part holds, made at once. */
const REPORT_TIMEOUT_MS = 60_000;

export class CrowdPartProcess implements RemoteCrowdPart {
  readonly part: CrowdPart;
  /** Resolves once the part has its crowd and listens: the joins start after every part is ready, so none spends
   * its start-up (loading its modules) while the shoppers join. */
  readonly ready: Promise<void>;
  readonly settled: Promise<void>;
  readonly #child: ChildProcess;
  #pending: JoinAnswer[] = [];
  #flushScheduled = false;
  #reportWaiter: { resolve(report: CrowdPartReport): void; reject(error: Error): void } | null = null;
  /** Set once the process failed or ended: nothing more comes from it. */
  #ended: Error | null = null;
  #closed = false;

  constructor(spec: CrowdPartSpec) {
    this.part = spec.part;
    // Structured clone, not JSON: a report carries tens of thousands of shoppers.
    this.#child = fork(new URL("./crowd-part-entry.ts", import.meta.url), {
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const ready = deferred();
    this.ready = ready.promise;
    // A part that fails leaves part 0's sale waiting on shoppers nobody watches: the failure ends the wait.
    const settled = deferred();
    this.settled = settled.promise;
    const failWith = (error: Error) => {
      if (this.#ended !== null) return;
      this.#ended = error;
      ready.fail(error);
      settled.fail(error);
      this.#reportWaiter?.reject(error);
      this.#reportWaiter = null;
    };
    this.#child.on("message", (message: FromCrowdPart) => {
      if (message.type === "ready") ready.done();
      else if (message.type === "settled") settled.done();
      else if (message.type === "report") {
        this.#reportWaiter?.resolve(message.report);
        this.#reportWaiter = null;
      } else failWith(new Error(`crowd part ${this.part.index} failed: ${message.message}`));
    });
    this.#child.on("error", failWith);
    this.#child.on("exit", (code, signal) => {
      if (!this.#closed)
        failWith(new Error(`crowd part ${this.part.index} exited (${signal ?? code}) before it was closed`));
    });
    this.#send({ type: "start", spec });
  }

  forward(answer: JoinAnswer): void {
    this.#pending.push(answer);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const answers = this.#pending;
      this.#pending = [];
      this.#send({ type: "joins", answers });
    });
  }

  report(): Promise<CrowdPartReport> {
    if (this.#ended !== null) return Promise.reject(this.#ended);
    return new Promise<CrowdPartReport>((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.#reportWaiter = null;
        reject(
          new Error(`crowd part ${this.part.index} sent no report within ${REPORT_TIMEOUT_MS / 1000} s`),
        );
      }, REPORT_TIMEOUT_MS);
      this.#reportWaiter = {
        resolve: (report) => {
          clearTimeout(timeout);
          resolve(report);
        },
        reject: (error) => {
          clearTimeout(timeout);
          reject(error);
        },
      };
      this.#send({ type: "report" });
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    // A part that failed may still be running (its sockets open, its pollers polling): it is killed at once.
    if (this.#ended !== null || !this.#child.connected) {
      this.#child.kill("SIGKILL");
      return;
    }
    this.#send({ type: "close" });
    const kill = setTimeout(() => this.#child.kill("SIGKILL"), CLOSE_GRACE_MS);
    kill.unref();
    this.#child.once("exit", () => clearTimeout(kill));
  }

  #send(message: ToCrowdPart): void {
    if (this.#ended !== null || !this.#child.connected) return;
    this.#child.send(message);
  }
}

/** A promise and its two ends. Its rejection is handled here, so a failure nobody awaits yet is no unhandled
 * rejection; an await still sees it. */
function deferred(): { promise: Promise<void>; done(): void; fail(error: Error): void } {
  let done!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  promise.catch(() => {});
  return { promise, done, fail };
}
