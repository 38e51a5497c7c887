// The body of the burst thread (burst-thread.ts): one OverloadBurst on a loop of its own, so tens of thousands
// of requests a second do not make the shop clients' timers late on the bench's main loop (nor the reverse).
// Steps are run one at a time as the main thread asks; the ids go back packed, their buffers transferred.
import { parentPort, workerData } from "node:worker_threads";
import type { PackedIds } from "./burst-id-list.ts";
import { type BurstOptions, type BurstStepReport, OverloadBurst } from "./overload-burst.ts";

export type BurstCommand = { type: "run"; rate: number; seconds: number } | { type: "finish" };
export type BurstReply =
  | { type: "step"; report: BurstStepReport }
  | { type: "ids"; ids: PackedIds }
  | { type: "failed"; message: string };

const port = parentPort;
if (port === null) throw new Error("burst-thread-entry.ts runs as a worker thread (see burst-thread.ts)");
const burst = new OverloadBurst(workerData as BurstOptions);

port.on("message", (command: BurstCommand) => {
  if (command.type === "run") {
    burst.run(command.rate, command.seconds).then(
      (report) => port.postMessage({ type: "step", report } satisfies BurstReply),
      (error: unknown) => port.postMessage({ type: "failed", message: String(error) } satisfies BurstReply),
    );
    return;
  }
  burst.close();
  const ids = burst.ids.pack();
  port.postMessage({ type: "ids", ids } satisfies BurstReply, [ids.bytes.buffer, ids.ends.buffer]);
  port.close();
});
