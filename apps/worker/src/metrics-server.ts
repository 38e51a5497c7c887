import { createServer, type Server } from "node:http";
import type { Registry } from "@floodgate/metrics";

/** A bare /metrics listener: workers serve nothing else over HTTP. */
export async function startMetricsServer(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer(async (request, response) => {
    if (request.url !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
