// `./floodgate bench admission-tokens` (issue 34, point 1): whole guarded requests with admission tokens, HS256
// against ES256, on two Floodgates started side by side (ADMISSION_TOKEN_ALG=HS256 and the default ES256),
// AUTH=off so the token is the only credential checked. Each system's room guards POST /v1/payments and admits
// as fast as a room may; every token is a real admission (admitted-shoppers.ts: joined, polled, handed out).
// Three targets alternate within each round (which goes first turns with the rounds): HS256 tokens each used
// once, ES256 tokens each used once, and ES256 tokens repeated (REPEATED_SHOPPERS shoppers, each token sent
// again and again). Each target's rate is its 2xx answers over the time to its last one, unrated autocannon;
// the figure is the median over the rounds, and each ES256 target's ratio to HS256's is held against 90 %.
// Every answer must be 202: a refused token stops the run. No workers: the payments queue (the backlog is not
// applied, and a room's guard skips backpressure). --smoke: 300 tokens a target, one round.
import { randomBytes } from "node:crypto";
import type { OptionSpec, OptionValues } from "../bench-options.ts";
import { freshFloodgate, type RecordedSystem } from "../harness/fresh-floodgate.ts";
import { describeLoadGenerator, runLoad } from "../harness/load-runner.ts";
import { jsonHeaders } from "../harness/payment-requests.ts";
import { log } from "../harness/progress-line.ts";
import { type ResultHead, resultHeader, summaryHead } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { type AdmittedShopper, admitShoppers, defineBenchRoom } from "./admitted-shoppers.ts";

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "tokens",
    kind: "int",
    help: "requests per target and round",
    default: 20_000,
    min: 50,
    max: 500_000,
  },
  { name: "rounds", kind: "int", help: "rounds of the three targets", default: 3, min: 1, max: 20 },
  { name: "connections", kind: "int", help: "autocannon connections", default: 50, min: 1, max: 1000 },
  {
    name: "smoke",
    kind: "flag",
    help: "300 tokens a target, one round: checks the command, measures nothing",
  },
];

const TARGETS = ["hs256Once", "es256Once", "es256Repeated"] as const;
type Target = (typeof TARGETS)[number];
const REPEATED_SHOPPERS = 100;
/** What each ES256 target's median rate must reach, as a share of HS256's (issue 34). */
const REQUIRED_RATIO = 0.9;

/** What this scenario's result adds to the head every result opens with. */
interface AdmissionTokensResult extends ResultHead<"admission-tokens"> {
  systems: Record<"es256" | "hs256", RecordedSystem>;
  rounds: Record<Target, TargetRun>[];
  medianPerSecond: Record<Target, number> | null;
  ratioToHs256: { es256Once: number; es256Repeated: number } | null;
  requiredRatio: number;
  met: boolean | null;
}

interface TargetRun {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  activeS: number;
  perSecond: number;
}

export const admissionTokensScenario: Scenario = {
  name: "admission-tokens",
  description:
    "guarded payments through a waiting room with never-seen HS256 and ES256 admission tokens and repeated ES256 ones, alternating; each ES256 rate against 90 % of HS256's",
  options: OPTIONS,
  run: (values, context) => runScenario(values, context),
};

async function runScenario(values: OptionValues, context: ScenarioContext): Promise<ScenarioOutcome> {
  const smoke = values.smoke === true;
  const sizes = {
    tokens: smoke ? 300 : Number(values.tokens),
    rounds: smoke ? 1 : Number(values.rounds),
    connections: smoke ? 10 : Number(values.connections),
    smoke,
  };
  // Per-user buckets off: a repeated token is one user sending many requests, and the bucket would measure itself.
  const rateLimits = { RATE_LIMITS: "*.ip=off,payments.user=off" };
  const es256 = freshFloodgate(context, { auth: "off", extraEnvironment: rateLimits });
  const hs256 = freshFloodgate(context, {
    auth: "off",
    instance: "hs256",
    extraEnvironment: {
      ...rateLimits,
      ADMISSION_TOKEN_ALG: "HS256",
      ADMISSION_TOKEN_SECRET: randomBytes(32).toString("base64url"),
    },
  });
  const systems: Record<"es256" | "hs256", RecordedSystem> = {
    es256: { settings: {}, services: null },
    hs256: { settings: {}, services: null },
  };
  const result: AdmissionTokensResult = {
    ...resultHeader("admission-tokens", context, sizes, describeLoadGenerator(null)),
    systems,
    rounds: [],
    medianPerSecond: null,
    ratioToHs256: null,
    requiredRatio: REQUIRED_RATIO,
    met: null,
    error: null,
  };
  return finishRun(
    result,
    async () => {
      await es256.start(0, systems.es256);
      await hs256.start(0, systems.hs256);
      result.services = systems.es256.services;
      const es = es256.system;
      const hs = hs256.system;
      await defineBenchRoom(es.baseUrl, es.adminKey);
      await defineBenchRoom(hs.baseUrl, hs.adminKey);

      const users = (name: string, count: number) =>
        Array.from({ length: count }, (_, i) => `${name}-${context.stamp}-${i}`);
      const total = sizes.tokens * sizes.rounds * 2 + REPEATED_SHOPPERS * 2;
      log(`admitting ${total} shoppers (each joins and polls until admitted: not measured)`);
      let done = 0;
      const admit = async (baseUrl: string, userIds: string[]) => {
        const admitted = await admitShoppers(baseUrl, userIds, (n) =>
          log(`admitted ${done + n} of ${total} shoppers`),
        );
        done += admitted.length;
        return admitted;
      };
      const once: Record<"hs256Once" | "es256Once", AdmittedShopper[][]> = { hs256Once: [], es256Once: [] };
      for (let round = 0; round < sizes.rounds; round++) {
        once.hs256Once.push(await admit(hs.baseUrl, users(`hs-${round}`, sizes.tokens)));
        once.es256Once.push(await admit(es.baseUrl, users(`es-${round}`, sizes.tokens)));
      }
      const repeated = await admit(es.baseUrl, users("es-repeated", REPEATED_SHOPPERS));
      const hsWarm = await admit(hs.baseUrl, users("hs-warm", REPEATED_SHOPPERS));

      const run = (baseUrl: string, label: string, shoppers: AdmittedShopper[], amount: number) =>
        guardedRun(baseUrl, label, shoppers, amount, sizes.connections);
      // Warm-ups, not recorded: each intake's code compiled hot, each repeated token seen once.
      await run(hs.baseUrl, "hs256 warm-up", hsWarm, Math.min(sizes.tokens, 5_000));
      await run(es.baseUrl, "es256 warm-up", repeated, Math.min(sizes.tokens, 5_000));

      for (let round = 0; round < sizes.rounds; round++) {
        const measured = {} as Record<Target, TargetRun>;
        for (let i = 0; i < TARGETS.length; i++) {
          const target = TARGETS[(round + i) % TARGETS.length]!;
          const label = `round ${round + 1}/${sizes.rounds} ${target}`;
          measured[target] =
            target === "hs256Once"
              ? await run(hs.baseUrl, label, once.hs256Once[round]!, sizes.tokens)
              : target === "es256Once"
                ? await run(es.baseUrl, label, once.es256Once[round]!, sizes.tokens)
                : await run(es.baseUrl, label, repeated, sizes.tokens);
        }
        result.rounds.push(measured);
      }
      const medians = Object.fromEntries(
        TARGETS.map((target) => [target, median(result.rounds.map((round) => round[target].perSecond))]),
      ) as Record<Target, number>;
      result.medianPerSecond = medians;
      const ratio = (target: Target) => Math.round((medians[target] / medians.hs256Once) * 1000) / 1000;
      result.ratioToHs256 = { es256Once: ratio("es256Once"), es256Repeated: ratio("es256Repeated") };
      result.met = Object.values(result.ratioToHs256).every((value) => value >= REQUIRED_RATIO);
    },
    async () => {
      await es256.close();
      await hs256.close();
    },
    summarize,
  );
}

/** `amount` guarded payments, the i-th with shopper i mod their number; every answer must be 202. */
async function guardedRun(
  baseUrl: string,
  label: string,
  shoppers: AdmittedShopper[],
  amount: number,
  connections: number,
): Promise<TargetRun> {
  let next = 0;
  const outcome = await runLoad({
    label,
    url: baseUrl,
    connections,
    rate: null,
    amount,
    request: {
      method: "POST",
      path: "/v1/payments",
      setupRequest: (request) => {
        const shopper = shoppers[next++ % shoppers.length]!;
        return {
          ...request,
          headers: jsonHeaders({ "admission-token": shopper.token }),
          body: JSON.stringify({ userId: shopper.userId, amount: 100 }),
        };
      },
    },
  });
  if (outcome.ok !== outcome.responses || outcome.errors > 0) {
    throw new Error(
      `${label}: ${outcome.responses - outcome.ok} of ${outcome.responses} answers were not 2xx (${JSON.stringify(outcome.statusCounts)}), ${outcome.errors} errors: every token is a real admission`,
    );
  }
  return {
    requests: outcome.responses,
    ok: outcome.ok,
    non2xx: outcome.non2xx,
    errors: outcome.errors,
    activeS: outcome.activeS,
    perSecond: Math.round(outcome.ok / Math.max(outcome.activeS, 0.001)),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

function summarize(result: AdmissionTokensResult): string[] {
  const { medianPerSecond: medians, ratioToHs256: ratios } = result;
  const lines = summaryHead(result);
  if (medians === null || ratios === null) return [...lines, `error: ${result.error ?? "no figures"}`];
  const smoke = result.settings.smoke === true;
  return [
    ...lines,
    `guarded payments/s (median of ${result.rounds.length} round(s)): HS256 once ${medians.hs256Once}, ES256 once ${medians.es256Once}, ES256 repeated ${medians.es256Repeated}`,
    `ES256 / HS256: once ${Math.round(ratios.es256Once * 100)} %, repeated ${Math.round(ratios.es256Repeated * 100)} % (required ${REQUIRED_RATIO * 100} %): ${result.met ? "met" : "NOT met"}${smoke ? " (smoke run: too small to judge)" : ""}`,
  ];
}
