import { INTAKE_LISTEN_BACKLOG } from "@floodgate/config";
import { ShardIdentityError } from "@floodgate/db";
import { EXIT_METRICS_PORT_IN_USE, MetricsPortInUseError, startMetricsListener } from "@floodgate/metrics";
import { buildApp } from "./app.ts";
import { config } from "./env.ts";
import { drainThenClose } from "./health/drain-then-close.ts";
import { backlogCapWarning, readSomaxconn } from "./listen-backlog.ts";
import { watchOpenFiles } from "./open-files-watch.ts";

const app = await buildApp(config).catch((error: unknown) => {
  if (!(error instanceof ShardIdentityError)) throw error;
  process.stderr.write(`floodgate intake: ${error.message}\n`); // a wrong SHARD_URLS: one line, not restarted
  process.exit(78);
});
// reusePort lets several intake processes share the port (INTAKE_PROCESSES); the kernel spreads connections.
// (Fastify hands these options to net.Server#listen as they are; its types do not list reusePort yet.)
// backlog: a flash crowd opens thousands of connections (WebSockets, keep-alive pools) within a second. With
// Node's default of 511 the accept queue overflows and the kernel drops SYNs, which clients retry after 1, 3,
// 7 s: a second's wait for nothing. The kernel caps it at net.core.somaxconn (listen-backlog.ts warns).
const listenOptions = {
  port: config.port,
  host: config.host,
  reusePort: config.intakeProcesses > 1,
  backlog: INTAKE_LISTEN_BACKLOG,
};
// This process's own /metrics (INTAKE_METRICS_PORT + its index): the public port is shared by every intake
// process, so a scrape there reaches any one of them and Prometheus would see its counters jump and reset.
// Before the public port: a taken one stops this process before it accepts anything.
const metricsPort = config.intakeMetricsPort > 0 ? config.intakeMetricsPort + config.intakeIndex : 0;
const metricsListener =
  metricsPort > 0
    ? await startMetricsListener({
        registry: app.metrics.registry,
        port: metricsPort,
        host: config.host,
        variable: "INTAKE_METRICS_PORT",
      }).catch((error: Error) => {
        if (!(error instanceof MetricsPortInUseError)) throw error;
        app.log.fatal({ metricsPort }, error.message);
        process.exit(EXIT_METRICS_PORT_IN_USE);
      })
    : undefined;
await app.listen(listenOptions);
const capWarning = backlogCapWarning(await readSomaxconn());
if (capWarning) app.log.warn({ requested: INTAKE_LISTEN_BACKLOG }, capWarning);
// Past its open-files limit the process drops connections silently: the log says so. Never stopped: its timer
// keeps nothing alive, and a drain at shutdown still accepts connections.
watchOpenFiles(app.log);

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "intake stopping");
    await drainThenClose(app, config.shutdownDrainSeconds);
    metricsListener?.close();
    process.exit(0);
  });
}
