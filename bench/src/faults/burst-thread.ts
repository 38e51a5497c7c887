// The overload burst on a worker thread (burst-thread-entry.ts): run(rate, seconds) per step, then finish()
// for the 2xx ids of every step.
import { Worker } from "node:worker_threads";
import { BurstIdList } from "./burst-id-list.ts";
import type { BurstCommand, BurstReply } from "./burst-thread-entry.ts";
import type { BurstOptions, BurstStepReport } from "./overload-burst.ts";

export class BurstThread {
  readonly #thread: Worker;
  #waiting: { resolve: (reply: BurstReply) => void; reject: (error: Error) => void } | null = null;
  #failure: Error | null = null;

  constructor(options: BurstOptions) {
    this.#thread = new Worker(new URL("./burst-thread-entry.ts", import.meta.url), { workerData: options });
    // Held only while a step runs: an idle thread left behind by a failed run never keeps the bench alive.
    this.#thread.unref();
    this.#thread.on("message", (reply: BurstReply) => {
      const waiting = this.#waiting;
      this.#waiting = null;
      this.#thread.unref();
      if (reply.type === "failed") waiting?.reject(new Error(`the burst thread failed: ${reply.message}`));
      else waiting?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.#failure = error;
      this.#waiting?.reject(error);
      this.#waiting = null;
    };
    this.#thread.on("error", fail);
    this.#thread.on("exit", (code) => {
      if (this.#waiting) fail(new Error(`the burst thread exited (code ${code}) before it answered`));
    });
  }

  async run(rate: number, seconds: number): Promise<BurstStepReport> {
    const reply = await this.#ask({ type: "run", rate, seconds });
    if (reply.type !== "step") throw new Error(`the burst thread answered ${reply.type} to a step`);
    return reply.report;
  }

  /** Ends the thread; the ids of every 2xx of every step. */
  async finish(): Promise<BurstIdList> {
    const reply = await this.#ask({ type: "finish" });
    await this.#thread.terminate();
    if (reply.type !== "ids") throw new Error(`the burst thread answered ${reply.type} to finish`);
    return BurstIdList.from(reply.ids);
  }

  /** Ends the thread whatever it is doing (a failed run's cleanup). */
  async terminate(): Promise<void> {
    await this.#thread.terminate();
  }

  #ask(command: BurstCommand): Promise<BurstReply> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#waiting) return Promise.reject(new Error("the burst thread is busy"));
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#thread.ref();
      this.#thread.postMessage(command);
    });
  }
}
