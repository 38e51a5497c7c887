// A process's own HTTP listener for Prometheus: /metrics, /healthz (the process lives) and, when the process
// says what ready means, /readyz. Workers serve it on WORKER_METRICS_PORT + i; intake processes, which share
// their public port (reusePort, so a scrape there reaches any one of them and Prometheus would see counters
// reset), on INTAKE_METRICS_PORT + i.
import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

/** The exit code of a process whose metrics port is taken: `start` backs off on it rather than looping. */
export const EXIT_METRICS_PORT_IN_USE = 75;

export class MetricsPortInUseError extends Error {
  readonly port: number;
  constructor(variable: string, port: number, host: string, hint = "") {
    super(
      `${variable}: port ${port} on ${host} is already in use (process i listens on ${variable} + i${hint}); set ${variable} to a free port or 0 to turn the listeners off`,
    );
    this.port = port;
  }
}

export interface MetricsListenerOptions {
  registry: Registry;
  port: number;
  host: string;
  /** The configuration variable that chose the port, named when it is taken. */
  variable: string;
  /** Added to the taken-port message, e.g. who else uses the port by default. */
  hint?: string;
  /** Without it there is no /readyz here (the process answers readiness elsewhere). */
  ready?: () => boolean;
}

export async function startMetricsListener(options: MetricsListenerOptions): Promise<Server> {
  const { registry, port, host, ready } = options;
  const server = createServer(async (request, response) => {
    const json = (status: number, body: object) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (request.url === "/metrics") {
      response.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
    } else if (request.url === "/healthz") {
      json(200, { status: "ok" });
    } else if (request.url === "/readyz" && ready) {
      if (ready()) json(200, { status: "ready" });
      else json(503, { status: "not consuming" });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new MetricsPortInUseError(options.variable, port, host, options.hint)
          : error,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}
