// WS /v1/operations/:id/ws: an operation's status, live. The socket gets {"type":"status","operation":<view>}
// (the body of the operation's GET route) at once and again on each change, whichever intake process holds
// it (changes come from the workers over Redis pub/sub), and is closed 1000 after a final status. A malformed
// or unknown id gets {"type":"error","code":<code>,"problem":<problem+json>} and a close 4400 or 4404.
import { Gauge } from "@floodgate/metrics";
import type { FastifyInstance } from "fastify";
import { authenticateSocket } from "../auth/socket-caller.ts";
import { operationSocketDocs } from "../openapi/socket-docs.ts";
import { readOperationView, watchedIdOf } from "../operations/operation-views.ts";
import { OperationWatchers } from "../operations/operation-watchers.ts";
import { StatusSubscriber } from "../operations/status-subscriber.ts";
import { answerUpgradeRequired, upgradeRequiredResponse } from "../websockets/upgrade-required.ts";

// No pattern on the id: a malformed one must reach the handler, which answers on the socket (4400), not
// refuse the upgrade with an HTTP 400 a browser's WebSocket cannot read.
const paramsSchema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string" } },
} as const;

export async function operationSocketRoute(app: FastifyInstance) {
  const gauge = new Gauge({
    name: "floodgate_operation_websockets",
    help: "Operation status WebSockets open on this intake process",
    registers: [app.metrics.registry],
  });
  const subscriber = new StatusSubscriber({
    redisUrl: app.config.redisUrl,
    channel: app.queueKeys.statusChannel(),
    log: app.log,
    onChanged: (ids) => watchers.changed(ids),
    onResubscribed: () => watchers.refreshAll(),
  });
  const watchers = new OperationWatchers({
    watchedIdOf: (id, caller) => watchedIdOf(app, id, caller),
    read: (id) => readOperationView(app, id),
    whenSubscribed: () => subscriber.whenSubscribed(),
    gauge,
    log: app.log,
  });

  app.addHook("onReady", async () => {
    subscriber.start();
    watchers.start();
  });
  app.addHook("onClose", async () => {
    watchers.stop();
    subscriber.stop();
  });

  app.route<{ Params: { id: string } }>({
    method: "GET",
    url: "/v1/operations/:id/ws",
    config: { auth: "socket" },
    schema: {
      operationId: "watchOperation",
      summary: "Live status of an operation: payment, deposit, coupon issue, order (WebSocket)",
      tags: ["Operations"],
      documented: { socket: operationSocketDocs },
      params: paramsSchema,
      response: upgradeRequiredResponse,
    },
    handler: answerUpgradeRequired,
    wsHandler: async (socket, request) => {
      const caller = await authenticateSocket(app, socket, request);
      if (caller === null) return;
      // The instance names the resource, not the URL: the query carries the access token.
      void watchers.attach(
        socket,
        request.params.id,
        request.url.split("?")[0] ?? request.url,
        caller,
        request.id,
      );
    },
  });
}
