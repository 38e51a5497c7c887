// How fast this machine's cpus were when a run started: a fixed loop on one thread, then on two at once. The
// vCPUs of a small VM can share a physical core or a busy host, and how much changes from hour to hour; the
// figures of two runs compare only if their calibrations do.
import { Worker } from "node:worker_threads";
import { loopbackRoundTripUs, memoryReadNs } from "./machine-probes.ts";

const LOOP = `
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x += i % 7;
  const ms = performance.now() - started;
`;

export interface CpuCalibration {
  /** ms for the loop on one thread, nothing else of ours running. */
  oneThreadMs: number;
  /** ms for the same loop on each of two threads at once (the slower one): 1x oneThreadMs = two free cpus. */
  twoThreadsMs: number;
  /** µs per loopback TCP round trip (machine-probes.ts); absent in result files written before it existed. */
  loopbackRoundTripUs?: number;
  /** ns per dependent random read in 64 MiB (machine-probes.ts); absent before it existed. */
  memoryReadNs?: number;
}

function loopInWorker(): Promise<number> {
  return new Promise((resolve, reject) => {
    // A dynamic import works whether the eval runs as CommonJS or as a module (Node may detect either).
    const source = `(async () => { ${LOOP}; (await import("node:worker_threads")).parentPort.postMessage(ms); })()`;
    const worker = new Worker(source, { eval: true });
    worker.once("message", (ms: number) => {
      resolve(ms);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

export async function calibrateCpu(): Promise<CpuCalibration> {
  const round = (ms: number) => Math.round(ms);
  const oneThreadMs = await loopInWorker();
  const [a, b] = await Promise.all([loopInWorker(), loopInWorker()]);
  return {
    oneThreadMs: round(oneThreadMs),
    twoThreadsMs: round(Math.max(a, b)),
    loopbackRoundTripUs: round(await loopbackRoundTripUs()),
    memoryReadNs: round(memoryReadNs()),
  };
}
