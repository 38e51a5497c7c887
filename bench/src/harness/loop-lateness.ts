// How late this thread's event loop ran its timers over a stretch of a run. Every time the bench reads (a
// response, a socket's open, a pushed message) is taken on such a loop; a lateness comparable to the figures
// says the generator, short of cpu or busy with other clients, set part of them.
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface LoopLateness {
  p50: number;
  p99: number;
  max: number;
}

const RESOLUTION_MS = 10;

/** The histogram holds whole intervals between the sampling timer's runs (10.1 ms on an idle loop); the
 * lateness is what exceeds the resolution. */
export const lateMs = (intervalNs: number): number =>
  Math.max(0, Math.round((intervalNs / 1e6 - RESOLUTION_MS) * 100) / 100);

export function startLoopLateness(): { stop(): LoopLateness } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      return {
        p50: lateMs(histogram.percentile(50)),
        p99: lateMs(histogram.percentile(99)),
        max: lateMs(histogram.max),
      };
    },
  };
}
