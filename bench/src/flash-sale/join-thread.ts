// The flash sale's joins run on a worker thread of their own. On the bench's main loop they shared the time
// with the crowd's sockets and polls: while 5,000 sockets opened, that loop ran timers up to 189 ms late
// (p99 122 ms), and every join answer waiting behind that work was timed as if the server had been slow.
// Each answer comes back as soon as the thread's loop turns, so the crowd watches and pays as before.
import { Worker } from "node:worker_threads";
import type { LoadOutcome } from "../harness/load-runner.ts";
import type { JoinAnswer, JoinLoadSpec, JoinThreadMessage } from "./join-thread-entry.ts";

export function runJoinsOnThread(
  spec: JoinLoadSpec,
  onAnswer: (answer: JoinAnswer) => void,
): Promise<LoadOutcome> {
  const thread = new Worker(new URL("./join-thread-entry.ts", import.meta.url), { workerData: spec });
  return new Promise<LoadOutcome>((resolve, reject) => {
    let outcome: LoadOutcome | null = null;
    thread.on("message", (message: JoinThreadMessage) => {
      if (message.type === "answers") {
        for (const answer of message.answers) onAnswer(answer);
      } else if (message.type === "done") {
        outcome = message.outcome;
        void thread.terminate();
      } else {
        reject(new Error(`the join thread failed: ${message.message}`));
        void thread.terminate();
      }
    });
    thread.on("error", reject);
    thread.on("exit", (code) => {
      if (outcome !== null) resolve(outcome);
      else reject(new Error(`the join thread exited (code ${code}) before it finished`));
    });
  });
}
