// A flash sale's crowd spread over client processes (--crowd-processes, issue 30 target 6): each socket is an
// open file, and one process may hold 20,000 on the development machine, fewer than --websockets 20000 and the
// crowd's connection pools (two runs ended in EMFILE). Shopper i belongs to part i % parts; part 0 is the
// bench's own process, which also sends every join (on its join thread) and hands each other part the answers
// of its shoppers. A part watches and pays for its own shoppers only, and at the end reports what they saw,
// merged here into the one crowd the tally reads.
import type { BenchIdentity } from "../harness/bench-identity.ts";
import type { LoopLateness } from "../harness/loop-lateness.ts";
import type { JoinAnswer } from "./join-thread-entry.ts";

/** Which part of how many a crowd is; shopper i is watched by part i % count. */
export interface CrowdPart {
  index: number;
  count: number;
}

export const ONLY_PART: CrowdPart = { index: 0, count: 1 };

export const partOfShopper = (shopperIndex: number, parts: number): number => shopperIndex % parts;

/** Shoppers of `part` among `users`. */
export const shoppersOfPart = (users: number, part: CrowdPart): number =>
  Math.max(0, Math.ceil((users - part.index) / part.count));

/** Files the bench's own process holds beside its share of the crowd: the join thread's connections and the
 * probe's, wallet funding's and token minting's pools, Redis, Postgres, its log and Node's own (generous). */
const BENCH_OWN_FILES = 500;

/**
 * Why the crowd cannot run in this many processes, or null: part 0 holds the most files (its share of the
 * sockets, its poll and pay pools, the join load's connections and the bench's own), and past the limit a
 * connect fails with EMFILE, Redis's included. One process cannot hold --websockets 20000 under a 20,000 limit.
 */
export function crowdFilesProblem(
  options: { websockets: number; connections: number; crowdProcesses: number },
  limit: number | null,
): string | null {
  if (limit === null) return null;
  const sockets = Math.ceil(options.websockets / options.crowdProcesses);
  const needed = sockets + 3 * options.connections + BENCH_OWN_FILES;
  if (needed <= limit) return null;
  const enough = Math.ceil(
    options.websockets / Math.max(1, limit - 3 * options.connections - BENCH_OWN_FILES),
  );
  return (
    `--websockets ${options.websockets} over ${options.crowdProcesses} crowd process(es) needs about ${needed} open files in ` +
    `the bench's process (${sockets} sockets, ${3 * options.connections} pooled connections, ${BENCH_OWN_FILES} of its own), ` +
    `over this process's limit of ${limit} (ulimit -n): ` +
    (enough > 0 && enough <= 8 && enough > options.crowdProcesses
      ? `give --crowd-processes ${enough} or more, or raise the limit`
      : "raise the limit, or give fewer --websockets")
  );
}

/** The socket counters a crowd keeps (flash-sale-crowd.ts); every one a count, summed over the parts. */
export interface SocketCounts {
  opened: number;
  failed: number;
  closedEarly: number;
  open: number;
  /** Each process's own peak, summed: sockets stay open to the sale's end, so this is the crowd's peak unless
   * some closed early. */
  peakOpen: number;
  withPosition: number;
  soldOutFirst: number;
}

export function addSocketCounts(into: SocketCounts, more: SocketCounts): void {
  for (const key of Object.keys(into) as (keyof SocketCounts)[]) into[key] += more[key];
}

/** The later loop of several, measure by measure: a part's lateness sets the times it read. */
export function latestLoop(loops: readonly LoopLateness[]): LoopLateness {
  return {
    p50: Math.max(0, ...loops.map((loop) => loop.p50)),
    p99: Math.max(0, ...loops.map((loop) => loop.p99)),
    max: Math.max(0, ...loops.map((loop) => loop.max)),
  };
}

/** What a part process needs to watch and pay for its shoppers, sent once as it starts. */
export interface CrowdPartSpec {
  baseUrl: string;
  roomId: string;
  users: number;
  websockets: number;
  connections: number;
  pollIntervalMs: number;
  sessionMs: number;
  keyPrefix: string;
  part: CrowdPart;
  /** Its shoppers' customer tokens, by user id; null with AUTH=off. */
  tokens: Record<string, string> | null;
  /** A stock sale's product (each admitted shopper orders one unit and pays it), or null (it pays once). */
  productId: string | null;
}

/** From the bench to a part. */
export type ToCrowdPart =
  | { type: "start"; spec: CrowdPartSpec }
  | { type: "joins"; answers: JoinAnswer[] }
  | { type: "report" }
  | { type: "close" };

/** From a part to the bench. */
export type FromCrowdPart =
  | { type: "ready" }
  | { type: "settled" }
  | { type: "report"; report: CrowdPartReport }
  | { type: "failed"; message: string };

/** What a part's shoppers saw: each owned shopper by its index, the part's sockets and its loop. */
export interface CrowdPartReport {
  shoppers: [index: number, seen: Record<string, unknown>][];
  sockets: SocketCounts;
  loopDelayMs: LoopLateness;
}

/**
 * A part's shoppers' customer tokens as the crowd uses them: each shopper's own, nothing else. A part acts for
 * shoppers only; a request as the shop's server would be a bug, so it throws.
 */
export function tokenTableIdentity(tokens: Record<string, string>): BenchIdentity {
  const tokenOf = (userId: string): string => {
    const token = tokens[userId];
    if (token === undefined) throw new Error(`this crowd part holds no customer token for ${userId}`);
    return token;
  };
  return {
    auth: "on",
    serverHeaders: () => {
      throw new Error("a crowd part acts for its shoppers only, never as the shop's server");
    },
    shopperHeaders: (userId) => ({ authorization: `Bearer ${tokenOf(userId)}` }),
    shopperToken: tokenOf,
    addShoppers: () => Promise.reject(new Error("a crowd part is given its shoppers' tokens, it mints none")),
  };
}

/** Another part of the crowd, in a process of its own (crowd-part-process.ts), as part 0 drives it. */
export interface RemoteCrowdPart {
  readonly part: CrowdPart;
  /** Resolves once it listens for its shoppers' join answers (rejects if it failed to start). */
  readonly ready: Promise<void>;
  /** A join answer of one of its shoppers: it watches and pays from there. */
  forward(answer: JoinAnswer): void;
  /** Resolves once each of its shoppers has paid or will not. */
  readonly settled: Promise<void>;
  report(): Promise<CrowdPartReport>;
  /** Closes its sockets and ends the process. */
  close(): void;
}
