// Entry of the baseline server, started by the bench as a child process (like Floodgate's intake).
// Configuration comes from the bench: PORT and DATABASE_URL; the pool size is the design's, fixed at 10.
import { createPool } from "@floodgate/db";
import { buildBaselineApp } from "./baseline-app.ts";

const port = Number(process.env.PORT ?? "3100");
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/floodgate_bench_baseline";

const pool = createPool(databaseUrl, { max: 10, applicationName: "floodgate-bench-baseline" });
const app = buildBaselineApp(pool, "KRW");
await app.listen({ port, host: "127.0.0.1" });

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0));
  });
}
