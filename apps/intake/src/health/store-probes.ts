// The databases' state as /readyz reports it and floodgate_shard_up / floodgate_global_db_up export it. Only
// reported: accepting a request never touches Postgres, so a shard that is down never makes an intake unready
// (its entries wait in the queue and are applied once it is back).
import { Gauge } from "@floodgate/metrics";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";

export const PROBE_TIMEOUT_MS = 2000;

/** "ok", or what went wrong (the error's message or a timeout). */
export type ProbeResult = string;

/** Runs `check` with a deadline; never throws. */
export async function probe(check: () => Promise<unknown>, ms = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([check(), deadline]);
    return "ok";
  } catch (error) {
    return (error as Error).message || "unreachable";
  } finally {
    clearTimeout(timer);
  }
}

export interface StoreStates {
  global: ProbeResult;
  /** Indexed by shard id. */
  shards: ProbeResult[];
}

export class StoreProbes {
  readonly #app: FastifyInstance;
  readonly #shardUp: Gauge<"shard">;
  readonly #globalUp: Gauge;

  constructor(app: FastifyInstance) {
    this.#app = app;
    const registers = [app.metrics.registry];
    this.#shardUp = new Gauge({
      name: "floodgate_shard_up",
      help: "1 when this intake reaches the shard's database, 0 when not (measured at /readyz and each scrape)",
      labelNames: ["shard"] as const,
      registers,
      collect: async () => void (await this.states()),
    });
    this.#globalUp = new Gauge({
      name: "floodgate_global_db_up",
      help: "1 when this intake reaches the global database, 0 when not",
      registers,
    });
  }

  /** Every database probed at once; also sets the gauges. */
  async states(): Promise<StoreStates> {
    const [global, ...shards] = await Promise.all([
      probe(() => sql`select 1`.execute(this.#app.globalDb)),
      ...this.#app.shards.databases.map((db) => probe(() => sql`select 1`.execute(db))),
    ]);
    this.#globalUp.set(global === "ok" ? 1 : 0);
    for (const [shard, state] of shards.entries()) {
      this.#shardUp.set({ shard: String(shard) }, state === "ok" ? 1 : 0);
    }
    return { global: global!, shards };
  }
}
