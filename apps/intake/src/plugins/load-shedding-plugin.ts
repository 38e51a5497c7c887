// Load shedding: when this process's event loop runs late, requests are already waiting in its sockets longer
// than a client will, and taking them all only makes every answer later (then client timeouts, retries, more
// load). So while the loop's delay is above LOAD_SHED_LOOP_DELAY_MS, API calls are answered `503 busy` with
// Retry-After before anything else runs (no authentication, no body, no Redis): a refusal costs a fraction of
// an accepted request, and the loop catches up. Health, metrics, admin and public routes are never shed, so
// probes and operators still get through; WebSockets are not either (they are long-lived, not per-request).
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Config } from "@floodgate/config";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { sendProblem } from "./problem-plugin.ts";

/** How often the delay is judged: short enough to react within a burst, long enough to hold samples. */
const WINDOW_MS = 100;
/** The monitor's sampling timer (ms). */
const RESOLUTION_MS = 10;

export interface ShedState {
  shedding: boolean;
  /** The last window's mean event-loop delay, ms. */
  delayMs: number;
}

/**
 * Starts shedding above `thresholdMs`, stops below half of it: without the gap, a loop that catches up by
 * shedding would flip back and forth every window.
 */
export function nextShedState(shedding: boolean, delayMs: number, thresholdMs: number): boolean {
  if (!Number.isFinite(delayMs)) return shedding;
  return shedding ? delayMs > thresholdMs / 2 : delayMs > thresholdMs;
}

export const loadSheddingPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  const thresholdMs = config.loadShedLoopDelayMs;
  if (thresholdMs === 0) return;
  const state: ShedState = { shedding: false, delayMs: 0 };
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const timer = setInterval(() => {
    // The monitor counts its own resolution in every sample; what is above it is lateness.
    const delayMs = histogram.count === 0 ? Number.NaN : histogram.mean / 1e6 - RESOLUTION_MS;
    histogram.reset();
    const shedding = nextShedState(state.shedding, delayMs, thresholdMs);
    if (shedding !== state.shedding) {
      app.log.warn(
        { eventLoopDelayMs: Math.round(delayMs), thresholdMs },
        shedding
          ? "load shedding on: the event loop is late, API calls get 503 busy with Retry-After"
          : "load shedding off: the event loop caught up",
      );
    }
    state.shedding = shedding;
    if (Number.isFinite(delayMs)) state.delayMs = delayMs;
  }, WINDOW_MS);
  timer.unref();
  app.addHook("onClose", async () => {
    clearInterval(timer);
    histogram.disable();
  });

  // Callback style: on every request, and almost always a no-op, so no promise is made for it.
  app.addHook("onRequest", (request, reply, done) => {
    if (
      !state.shedding ||
      request.method === "OPTIONS" ||
      request.routeOptions.url === undefined ||
      // Only API calls ("caller" routes): see the file's comment.
      (request.routeOptions.config.auth ?? "caller") !== "caller"
    ) {
      done();
      return;
    }
    app.metrics.shedRequests.inc();
    // Answered here, so `done` is not called: nothing after this hook runs.
    sendProblem(request, reply, "busy", {
      retryAfterSeconds: 1,
      detail: `this intake's event loop is ${Math.round(state.delayMs)} ms late (limit ${thresholdMs} ms): nothing was done; retry with the same Idempotency-Key`,
    });
  });
});
