import { hostname } from "node:os";
import type { WorkerProcess } from "@floodgate/test-fixtures";

/** The consumer name a worker process uses in the group (apps/worker/src/main.ts). */
export const consumerOf = (worker: WorkerProcess) => `${hostname()}-${worker.child.pid}`;
