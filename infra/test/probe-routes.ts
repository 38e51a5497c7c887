// What the apps answer on their health paths, for checking the probes the deploy files point at them.
import type { AddressInfo } from "node:net";
import { Registry, startMetricsListener } from "@floodgate/metrics";
import { routePaths } from "./deploy-files.ts";

/** The intake's health routes, as its routes file registers them (the app itself needs Redis to build). */
export const intakeHealthPaths = () => routePaths("apps/intake/src/routes/health-routes.ts");

/** The status a worker's own listener (WORKER_METRICS_PORT) answers on each path, once it consumes. */
export async function workerListenerStatuses(paths: string[]): Promise<Map<string, number>> {
  const server = await startMetricsListener({
    registry: new Registry(),
    port: 0,
    host: "127.0.0.1",
    variable: "WORKER_METRICS_PORT",
    ready: () => true,
  });
  try {
    const { port } = server.address() as AddressInfo;
    const statuses = new Map<string, number>();
    for (const path of paths) statuses.set(path, (await fetch(`http://127.0.0.1:${port}${path}`)).status);
    return statuses;
  } finally {
    server.close();
  }
}
