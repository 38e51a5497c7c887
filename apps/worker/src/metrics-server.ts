import { createServer, type Server } from "node:http";
import type { Registry } from "@floodgate/metrics";

/** The worker's exit code when its metrics port is taken: `start` backs off on it rather than looping. */
export const EXIT_METRICS_PORT_IN_USE = 75;

export class MetricsPortInUseError extends Error {
  readonly port: number;
  constructor(port: number, host: string) {
    super(
      `WORKER_METRICS_PORT: port ${port} on ${host} is already in use (worker i listens on WORKER_METRICS_PORT + i; 9464 is also OpenTelemetry's exporter default); set WORKER_METRICS_PORT to a free port or 0 to turn the listeners off`,
    );
    this.port = port;
  }
}

/**
 * The worker's HTTP listener: /metrics, /healthz (the process lives) and /readyz (it consumes: `ready()`).
 * Started before the worker consumes, so a taken port stops it before it read anything.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host: string,
  ready: () => boolean = () => true,
): Promise<Server> {
  const server = createServer(async (request, response) => {
    const json = (status: number, body: object) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    switch (request.url) {
      case "/metrics":
        response.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
        return;
      case "/healthz":
        return json(200, { status: "ok" });
      case "/readyz":
        return ready() ? json(200, { status: "ready" }) : json(503, { status: "not consuming" });
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new MetricsPortInUseError(port, host) : error),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}
