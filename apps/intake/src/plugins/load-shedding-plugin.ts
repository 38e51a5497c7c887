// Load shedding (load-shedding/load-shedder.ts says why and how much): while this process's event loop is
// late, a share of API calls is answered `503 busy` with Retry-After before anything else runs. The hot POST
// routes are refused by the HTTP server's listener before Fastify (load-shedding/shedding-server.ts); this
// plugin starts the shedder, tells that listener which paths it may refuse, and refuses every other API call
// in the first onRequest hook. Health, metrics, admin and public routes are never shed, so probes and
// operators still get through; WebSockets are not either (they are long-lived, not per-request).
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { sendProblem } from "../errors/problem-reply.ts";
import { type RawShedding, wasJudged } from "../load-shedding/shedding-server.ts";

/** API calls: routes whose callers are shops or shoppers ("caller", the default). */
const isApiRoute = (config: unknown): boolean =>
  ((config as { auth?: string } | undefined)?.auth ?? "caller") === "caller";

export const loadSheddingPlugin = fp(
  async (app: FastifyInstance, { shedding }: { shedding: RawShedding }) => {
    const { shedder } = shedding;
    if (!shedder.enabled) return;
    shedding.onShed = () => app.metrics.shedRequests.inc();
    app.metrics.admittedShare.set(1);
    // Routes are registered after this plugin: each POST API route without parameters joins the raw path.
    // Judged once all are registered: admin plugins mark their routes in their own onRoute hooks, after ours.
    const routes: { method: string | string[]; url: string; config?: unknown }[] = [];
    app.addHook("onRoute", (route) => {
      routes.push(route);
    });
    app.addHook("onReady", async () => {
      for (const route of routes) {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        if (methods.includes("POST") && !/[:*]/.test(route.url) && isApiRoute(route.config)) {
          shedding.postPaths.add(route.url);
        }
      }
      routes.length = 0;
      shedder.start(
        ({ shedding: on, loopDelayMs, redisWaitMs, admitShare }) => {
          const fields = {
            eventLoopDelayMs: Math.round(loopDelayMs),
            redisWaitMs: Math.round(redisWaitMs),
            limits: shedder.limits,
            admitShare,
          };
          if (on)
            app.log.warn(
              fields,
              "load shedding on: the event loop or Redis is late, a share of API calls get 503 busy",
            );
          else app.log.warn(fields, "load shedding off: caught up, every API call is admitted");
        },
        (share) => app.metrics.admittedShare.set(share),
      );
    });
    app.addHook("onClose", async () => shedder.stop());

    // Callback style: on every request, and almost always a no-op, so no promise is made for it.
    app.addHook("onRequest", (request, reply, done) => {
      if (
        shedder.admitShare === 1 ||
        request.method === "OPTIONS" ||
        request.routeOptions.url === undefined ||
        !isApiRoute(request.routeOptions.config) ||
        wasJudged(request.raw) ||
        !shedder.shouldShed()
      ) {
        done();
        return;
      }
      shedding.onShed();
      // Answered here, so `done` is not called: nothing after this hook runs.
      sendProblem(request, reply, "busy", { retryAfterSeconds: 1, detail: shedder.detail() });
    });
  },
);
