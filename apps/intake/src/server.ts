import { buildApp } from "./app.ts";
import { config } from "./env.ts";

const app = await buildApp(config);
// reusePort lets several intake processes share the port (INTAKE_PROCESSES); the kernel spreads connections.
// (Fastify hands these options to net.Server#listen as they are; its types do not list reusePort yet.)
const listenOptions = { port: config.port, host: config.host, reusePort: config.intakeProcesses > 1 };
await app.listen(listenOptions);

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "intake closing: finishing in-flight requests");
    await app.close();
    process.exit(0);
  });
}
