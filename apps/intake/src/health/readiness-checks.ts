// What decides whether this intake should get traffic: it can store what it accepts (Redis answers a write).
// Only reported, never deciding: the databases (accepting never touches Postgres; store-probes.ts) and the
// workers' backlog (answered per request while the intake stays in service; backlog-report.ts).
import type { FastifyInstance } from "fastify";
import { Cluster } from "ioredis";
import { type ProbeResult, probe } from "./store-probes.ts";

/** The key the readiness write lands on; short-lived, so it never accumulates. */
export const readinessKey = (redisPrefix: string) => `${redisPrefix}readyz`;

/**
 * A SET with a short TTL on the scrape connection (the request connection's command count stays the requests' own):
 * a full or read-only Redis refuses it as it would refuse an enqueue. The request connection must be up too. On a
 * cluster the SET lands on one master; every master must also answer, or the requests of its slots would fail.
 */
export async function redisWritable(app: FastifyInstance): Promise<ProbeResult> {
  if (app.redis.status !== "ready") return `request connection ${app.redis.status}`;
  const stats = app.statsRedis;
  const [write, masters] = await Promise.all([
    probe(() => stats.set(readinessKey(app.config.redisPrefix), Date.now(), "PX", 10_000)),
    stats instanceof Cluster ? everyMasterAnswers(stats) : "ok",
  ]);
  const problems = [write, masters].filter((state) => state !== "ok");
  return problems.length === 0 ? "ok" : problems.join("; ");
}

/**
 * PING to every master the client's slot map names, at once: "ok", or each master that did not answer. The slot
 * map, not only the open connections: ioredis drops the connection to a master that died, and the master stays in
 * the map (its slots unwritable) until its replica takes over and the map is refreshed.
 */
export async function everyMasterAnswers(cluster: Cluster): Promise<ProbeResult> {
  const connected = new Map(
    cluster.nodes("master").map((node) => [`${node.options.host}:${node.options.port}`, node]),
  );
  const masters = new Set<string>();
  let unserved = 0;
  for (let slot = 0; slot < SLOTS; slot++) {
    const master = cluster.slots[slot]?.[0];
    if (master === undefined) unserved++;
    else masters.add(master);
  }
  const failures = await Promise.all(
    [...masters].sort().map(async (master) => {
      const node = connected.get(master);
      const state = node === undefined ? "not connected" : await probe(() => node.ping());
      return state === "ok" ? [] : [`master ${master}: ${state}`];
    }),
  );
  const problems = [...(unserved > 0 ? [`${unserved} slots without a master`] : []), ...failures.flat()];
  return problems.length === 0 ? "ok" : problems.join("; ");
}

const SLOTS = 16_384;
