// SIGTERM: /readyz answers 503 for the drain window while every route still serves, so a load balancer takes
// this process out before it stops accepting; then app.close() finishes in-flight requests (WebSockets hear 1001).
import type { FastifyInstance } from "fastify";

export async function drainThenClose(app: FastifyInstance, drainSeconds: number): Promise<void> {
  app.lifecycle.draining = true;
  if (drainSeconds > 0) {
    app.log.info({ drainSeconds }, "intake draining: /readyz answers 503, still serving");
    await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
  }
  app.log.info("intake closing: finishing in-flight requests");
  await app.close();
}
