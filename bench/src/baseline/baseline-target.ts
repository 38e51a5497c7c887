// --baseline: a fresh database and the synchronous baseline server, reachable like Floodgate.
import { dropDatabases, ensureDatabases } from "@floodgate/db";
import { ShardSet } from "../audits/shard-set.ts";
import { NO_IDENTITY } from "../harness/bench-identity.ts";
import type { BenchTarget } from "../harness/bench-target.ts";
import { freePort, type RunningService, startService } from "../harness/child-service.ts";
import { FUNDING_AMOUNT } from "../harness/payment-requests.ts";
import { prepareBaselineDatabase } from "./baseline-schema.ts";

export interface BaselineHandle {
  target: BenchTarget;
  close(): Promise<void>;
}

export async function startBaseline(options: {
  databaseUrl: string;
  users: number;
  logFile: string;
}): Promise<BaselineHandle> {
  await dropDatabases([options.databaseUrl]);
  await ensureDatabases([options.databaseUrl]);
  await prepareBaselineDatabase(options.databaseUrl, options.users, FUNDING_AMOUNT);
  const port = await freePort();
  const service: RunningService = await startService({
    name: "baseline",
    script: "bench/src/baseline/baseline-server.ts",
    env: { PORT: String(port), DATABASE_URL: options.databaseUrl },
    port,
    readyPath: "/readyz",
    readyTimeoutMs: 30_000,
    logFile: options.logFile,
  });
  const shards = new ShardSet([options.databaseUrl]);
  return {
    // The baseline has no identity: its requests stay as they were (the body's userId).
    target: { name: "baseline", baseUrl: service.baseUrl, shards, identity: NO_IDENTITY },
    close: async () => {
      await service.stop();
      await shards.close();
    },
  };
}
