// Options of `./floodgate bench payments`. Defaults replay seed 000: 2,000 payments/s for 60 s, then the
// 120,000-payment drain when --drain is given. --max compares auth on with AUTH=off unless --auth says otherwise.
import { OptionError, type OptionSpec, type OptionValues } from "../bench-options.ts";
import { PEER_NAMES, type PeerName } from "./peers/peer-names.ts";

export const AUTH_MODES = ["on", "off", "compare"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const REDIS_MODES = ["single", "cluster", "cluster-wait"] as const;
export type RedisMode = (typeof REDIS_MODES)[number];

export const GENERATORS = ["autocannon", "wrk"] as const;
export type Generator = (typeof GENERATORS)[number];

export const PAYMENTS_OPTION_SPECS: readonly OptionSpec[] = [
  {
    name: "rate",
    kind: "int",
    help: "offered payments/s across all connections",
    default: 2000,
    min: 1,
    max: 100_000,
  },
  {
    name: "duration",
    kind: "int",
    help: "seconds of load in the fixed-rate run",
    default: 60,
    min: 1,
    max: 3600,
  },
  {
    name: "users",
    kind: "int",
    help: "wallets funded before the run; payments pick one at random",
    default: 100_000,
    min: 1,
    max: 2_000_000,
  },
  {
    name: "connections",
    kind: "int",
    help: "HTTP connections of the load generator",
    default: 100,
    min: 1,
    max: 10_000,
  },
  {
    name: "slices",
    kind: "int",
    help: "staggered autocannon instances that spread the rate over each second (1 = plain autocannon, bursts at each second)",
    default: 20,
    min: 1,
    max: 100,
  },
  { name: "workers", kind: "int", help: "Floodgate worker processes (WORKERS)", default: 2, min: 1, max: 64 },
  {
    name: "max",
    kind: "flag",
    help: "search the highest accepted rate with intake p99 < 50 ms instead of the fixed-rate run",
  },
  { name: "stage-duration", kind: "int", help: "seconds per --max stage", default: 10, min: 3, max: 120 },
  {
    name: "sustained",
    kind: "flag",
    help: "search the highest rate held with every answer a 202, every payment applied once and consumer lag < 1 s, from --rate up by 25 % a stage, then bisect (instead of the fixed-rate run)",
  },
  {
    name: "sustained-duration",
    kind: "int",
    help: "seconds per --sustained stage",
    default: 60,
    min: 3,
    max: 600,
  },
  { name: "sustained-stages", kind: "int", help: "most --sustained stages", default: 10, min: 1, max: 30 },
  {
    name: "drain",
    kind: "optional-int",
    help: "queue N payments with workers stopped, then time the drain (replaces the fixed-rate run)",
    default: 120_000,
    min: 1,
    max: 2_000_000,
  },
  {
    name: "baseline",
    kind: "flag",
    help: "also run the synchronous baseline at the same settings and report the ratio",
  },
  {
    name: "auth",
    kind: "choice",
    choices: AUTH_MODES,
    help: "on: shoppers pay with customer tokens; off: AUTH=off; compare: two systems side by side, the measured phases on both (--max stages in pairs), and the ratio (default: compare with --max, else on)",
  },
  {
    name: "redis",
    kind: "choice",
    choices: REDIS_MODES,
    help: "single: the bench Redis (BENCH_REDIS_URL); cluster: also a second Floodgate on a private 3-master Redis Cluster started from redis-server on PATH, beside the single-node one, the measured phases on both (--max stages in pairs) and the ratio; cluster-wait: two systems on a private 3-master cluster with a replica each, REDIS_WAIT_REPLICAS=0 beside =1, what a replica's confirmation costs (default single)",
  },
  {
    name: "generator",
    kind: "choice",
    choices: GENERATORS,
    help: "autocannon: the --max rate search; wrk: --max becomes a closed-loop saturation comparison (one wrk thread, --connections connections, 5,000 shoppers) of the intake alone (WORKERS=0) with AUTH=off and with auth on, and the --peer targets, stage by stage for --rounds rounds (default autocannon)",
  },
  {
    name: "peer",
    kind: "repeated",
    choices: PEER_NAMES,
    help: "with --max --generator wrk, also saturate a comparison target on the bench Redis, one process each: raw (Fastify + one XADD) or bullmq (Fastify + Queue.add); repeat for both",
  },
  {
    name: "compare-checkout",
    kind: "path",
    help: "with --max --generator wrk, also saturate the intake (AUTH=off) of another checkout of this repository, e.g. a git worktree of the last release, built and installed: before and after a change alternate in one run",
  },
  {
    name: "rounds",
    kind: "int",
    help: "--generator wrk: rounds of stages: each other target once, the AUTH=off intake before and after each (the reference its ratios are taken against), the others' order rotating; a goal needs this many steady comparisons (AUTH=off stages right before and after, no more than 10 % of the lower apart), and up to as many extra rounds, of the targets still short, replace the others (up to twice the run's time)",
    default: 2,
    min: 1,
    max: 20,
  },
];

export interface PaymentsOptions {
  rate: number;
  duration: number;
  users: number;
  connections: number;
  slices: number;
  workers: number;
  max: boolean;
  stageDuration: number;
  /** --sustained: the highest rate held for `sustainedDuration` s, at most `sustainedStages` stages. */
  sustained: boolean;
  sustainedDuration: number;
  sustainedStages: number;
  drain: number | null;
  baseline: boolean;
  /** on: customer tokens (as deployed); off: AUTH=off; compare: the measured phases once each way. */
  auth: AuthMode;
  /** single: one Redis; cluster: the measured phases on one Redis and on a Redis Cluster, side by side;
   * cluster-wait: on a cluster with replicas, without and with REDIS_WAIT_REPLICAS=1, side by side. */
  redis: RedisMode;
  /** The fixed-rate run happens unless --max or --drain chose other phases. */
  fixedRate: boolean;
  /** wrk: --max is the closed-loop saturation comparison (payments/saturation/). */
  generator: Generator;
  /** --generator wrk's comparison targets, in the order given. */
  peers: PeerName[];
  /** --generator wrk: another checkout whose intake is a target too (the "before" of a change), or null. */
  compareCheckout: string | null;
  rounds: number;
}

export function toPaymentsOptions(values: OptionValues): PaymentsOptions {
  const int = (name: string) => values[name] as number;
  const options: PaymentsOptions = {
    rate: int("rate"),
    duration: int("duration"),
    users: int("users"),
    connections: int("connections"),
    slices: int("slices"),
    workers: int("workers"),
    max: values.max === true,
    stageDuration: int("stage-duration"),
    sustained: values.sustained === true,
    sustainedDuration: int("sustained-duration"),
    sustainedStages: int("sustained-stages"),
    drain: values.drain === null ? null : int("drain"),
    baseline: values.baseline === true,
    redis: (values.redis as RedisMode | null) ?? "single",
    // One pairing per run: --redis cluster compares the Redis topologies with auth on.
    auth:
      (values.auth as AuthMode | null) ??
      (values.max === true && (values.redis ?? "single") === "single" ? "compare" : "on"),
    fixedRate: values.max !== true && values.drain === null && values.sustained !== true,
    generator: (values.generator as Generator | null) ?? "autocannon",
    peers: typeof values.peer === "string" ? (values.peer.split(",") as PeerName[]) : [],
    compareCheckout: typeof values["compare-checkout"] === "string" ? values["compare-checkout"] : null,
    rounds: int("rounds"),
  };
  checkGenerator(options, values);
  if (options.sustained) {
    // One system, one search: the lag criterion is about the system alone, and two searches would share its time.
    const other = options.max
      ? "--max"
      : options.baseline
        ? "--baseline"
        : options.auth === "compare"
          ? "--auth compare"
          : options.redis !== "single"
            ? `--redis ${options.redis}`
            : null;
    if (other !== null)
      throw new OptionError(`--sustained runs one Floodgate alone; it does not combine with ${other}`);
  }
  if (options.baseline && !options.fixedRate && !options.max) {
    throw new OptionError(
      "--baseline compares the fixed-rate run or --max; the synchronous baseline has no queue to --drain",
    );
  }
  if (options.auth === "compare" && !options.fixedRate && !options.max) {
    throw new OptionError(
      "--auth compare compares the fixed-rate run or --max; --drain alone runs with auth on (or --auth off)",
    );
  }
  if (options.redis !== "single" && options.auth === "compare") {
    throw new OptionError(
      `--redis ${options.redis} and --auth compare each run two systems in pairs; compare one thing at a time`,
    );
  }
  if (options.redis !== "single" && (options.baseline || options.drain !== null)) {
    throw new OptionError(
      `--redis ${options.redis} compares the fixed-rate run or --max on two systems, without --baseline or --drain`,
    );
  }
  return options;
}

/** --generator wrk is a mode of its own: --max only, on one Redis, with both auth settings and no other phase. */
function checkGenerator(options: PaymentsOptions, values: OptionValues) {
  if (options.compareCheckout !== null && (options.generator !== "wrk" || !options.max)) {
    throw new OptionError(
      "--compare-checkout is a target of the saturation comparison: give it with --max --generator wrk",
    );
  }
  if (options.peers.length > 0 && (options.generator !== "wrk" || !options.max)) {
    throw new OptionError(
      "--peer is a target of the saturation comparison: give it with --max --generator wrk",
    );
  }
  if (options.generator !== "wrk") return;
  if (!options.max) {
    throw new OptionError("--generator wrk runs the --max saturation comparison: add --max");
  }
  const refused = [
    values.auth !== null && "--auth (it always runs AUTH=off and auth on)",
    options.redis !== "single" && "--redis",
    options.baseline && "--baseline",
    options.drain !== null && "--drain",
  ].filter((text): text is string => typeof text === "string");
  if (refused.length > 0) {
    throw new OptionError(`--generator wrk takes no ${refused.join(", ")}`);
  }
}
