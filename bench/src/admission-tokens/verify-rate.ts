// Admission token verification, HS256 as today against ES256 as the intake now does it, in one process:
//   node bench/src/admission-tokens/verify-rate.ts [--tokens N] [--rounds R]
// "fresh": N tokens the verifier has never seen (signed by another instance, as by another intake); "own":
// N new tokens the verifying instance signed itself (the shopper's first request reaching the intake that
// admitted it; ES256 remembers what it signs, HS256 does not, so HS256 repeats its fresh figure); "repeated":
// a shopper's token sent again with each request (R_SHOPPERS tokens, each verified N / R_SHOPPERS times). HS256
// is today's verifier (no memory of verified tokens); ES256 is the intake's (Es256AdmissionTokens with a
// VerifiedTokenCache of the intake's size). The algorithms alternate within each round (and which goes first
// alternates between rounds), so a change of machine load hits both; each rate printed is the median of the
// rounds. Every verdict is checked: a token that does not verify stops the run. Verification only: a guarded
// request also costs its parse, auth, Lua call and answer, which this does not measure. Prints; writes no file.
// (A guarded request no longer verifies at all: the intake reads the claims and its script compares the token's
// digest with the pass's. Whole guarded requests: guarded-requests-scenario.ts, `./floodgate bench
// admission-tokens`. This measures the signature check the previous release's passes and shops' gates still make.)
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
// By path: the bench package does not depend on the server packages, and this script needs only these files.
import {
  type AdmissionClaims,
  type AdmissionTokens,
  Hs256AdmissionTokens,
} from "../../../packages/admission/src/admission-token.ts";
import { Es256AdmissionTokens } from "../../../packages/admission/src/es256-admission-tokens.ts";
import { generateAdmissionSigningKey } from "../../../packages/auth/src/admission-key-store.ts";
import { VerifiedTokenCache } from "../../../packages/auth/src/verified-token-cache.ts";

const { values } = parseArgs({
  options: { tokens: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } },
});
const N = Number(values.tokens);
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(N) || N < 100 || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  process.stderr.write("usage: verify-rate.ts [--tokens N>=100] [--rounds R>=1]\n");
  process.exit(2);
}
const R_SHOPPERS = 100;
const CACHE_SIZE = 100_000; // the intake's (admission-signing-keys.ts)
const SECRET = "a-bench-secret-that-is-long-enough-0123456789";

const key = { ...generateAdmissionSigningKey(), signsFrom: 0 };
const signers = { HS256: new Hs256AdmissionTokens(SECRET), ES256: new Es256AdmissionTokens({ keys: [key] }) };
const verifiers: Record<"HS256" | "ES256", AdmissionTokens> = {
  HS256: new Hs256AdmissionTokens(SECRET),
  ES256: new Es256AdmissionTokens({
    keys: [key],
    cache: new VerifiedTokenCache<AdmissionClaims>(CACHE_SIZE),
  }),
};
type Alg = keyof typeof signers;

let serial = 0;
function claims(): AdmissionClaims {
  serial++;
  const now = Date.now();
  return {
    roomId: "drop",
    ticketId: `tkt_${String(serial).padStart(26, "0")}`,
    userId: `user-${serial}`,
    admittedAt: now,
    expiresAt: now + 3_600_000,
  };
}
const sign = (alg: Alg, count: number) => Array.from({ length: count }, () => signers[alg].issue(claims()));

/** Verifies each token in order; the rate in verifications per second. */
function rate(alg: Alg, tokens: string[]): number {
  const verifier = verifiers[alg];
  const started = process.hrtime.bigint();
  let refused = 0;
  for (const token of tokens) if (!verifier.verify(token).ok) refused++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (refused > 0) throw new Error(`${alg}: ${refused} of ${tokens.length} tokens refused`);
  return tokens.length / seconds;
}

const shoppers: Record<Alg, string[]> = {
  HS256: sign("HS256", R_SHOPPERS),
  ES256: sign("ES256", R_SHOPPERS),
};
const repeated = (alg: Alg) => Array.from({ length: N }, (_, i) => shoppers[alg][i % R_SHOPPERS]!);
// Warm-up (JIT, the shoppers' tokens remembered once as a sale's first requests would), not measured.
for (const alg of ["HS256", "ES256"] as const) {
  rate(alg, sign(alg, 500));
  rate(alg, repeated(alg).slice(0, 2000));
}

const results: Record<"fresh" | "own" | "repeated", Record<Alg, number[]>> = {
  fresh: { HS256: [], ES256: [] },
  own: { HS256: [], ES256: [] },
  repeated: { HS256: [], ES256: [] },
};
for (let round = 0; round < ROUNDS; round++) {
  const order: Alg[] = round % 2 === 0 ? ["HS256", "ES256"] : ["ES256", "HS256"];
  // Signed before the clock starts: fresh tokens are new to the verifier, not to the process.
  const fresh = { HS256: sign("HS256", N), ES256: sign("ES256", N) };
  for (const alg of order) results.fresh[alg].push(rate(alg, fresh[alg]));
  const own = {
    HS256: Array.from({ length: N }, () => verifiers.HS256.issue(claims())),
    ES256: Array.from({ length: N }, () => verifiers.ES256.issue(claims())),
  };
  for (const alg of order) results.own[alg].push(rate(alg, own[alg]));
  for (const alg of order) results.repeated[alg].push(rate(alg, repeated(alg)));
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const cpu = cpus()[0]?.model ?? "unknown cpu";
console.log(
  `admission token verification: ${N} tokens x ${ROUNDS} rounds; node ${process.version}; ${availableParallelism()} x ${cpu}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
for (const kind of ["fresh", "own", "repeated"] as const) {
  const hs = median(results[kind].HS256);
  const es = median(results[kind].ES256);
  const ratio = es / hs;
  console.log(
    `${kind.padEnd(8)}  HS256 ${fmt(hs).padStart(10)}/s (${(1e6 / hs).toFixed(2)} µs)  ES256 ${fmt(es).padStart(10)}/s (${(1e6 / es).toFixed(2)} µs)  ES256/HS256 ${(ratio * 100).toFixed(1)} %  ${ratio >= 0.9 ? "meets" : "misses"} the 90 % goal`,
  );
  console.log(
    `          rounds HS256 ${results[kind].HS256.map(fmt).join(", ")}; ES256 ${results[kind].ES256.map(fmt).join(", ")}`,
  );
}
