// Options of `./floodgate bench flash-sale`. Defaults: 20,000 users join within 2 s a room that admits 2,000/s;
// half of them watch their place over a WebSocket, the others poll; each pays once admitted. With
// --compare-checkout the same sale runs round after round on this checkout's system and another's.
import { OptionError, type OptionSpec, type OptionValues } from "../bench-options.ts";

/** Rounds of a comparison when --rounds is not given: three sales a side, so one busy sale is not the median. */
export const DEFAULT_COMPARISON_ROUNDS = 3;

export const FLASH_SALE_OPTION_SPECS: readonly OptionSpec[] = [
  { name: "users", kind: "int", help: "users who join the room", default: 20_000, min: 10, max: 200_000 },
  { name: "admit", kind: "int", help: "the room's admitPerSecond", default: 2000, min: 1, max: 100_000 },
  {
    name: "websockets",
    kind: "int",
    help: "users who watch over a WebSocket (spread over the queue; the others poll)",
    default: 10_000,
    min: 0,
    max: 200_000,
  },
  {
    name: "join-seconds",
    kind: "int",
    help: "seconds over which the users join",
    default: 2,
    min: 1,
    max: 600,
  },
  {
    name: "starts-in",
    kind: "int",
    help: "seconds from the first join to the room's startsAt: earlier joins form the pre-queue, shuffled at the start (0: no start time, FIFO from the first join)",
    default: 0,
    min: 0,
    max: 3600,
  },
  {
    name: "connections",
    kind: "int",
    help: "HTTP connections of the join load (and of the pollers and payers)",
    default: 200,
    min: 1,
    max: 10_000,
  },
  {
    name: "slices",
    kind: "int",
    help: "staggered autocannon instances that spread the join rate over each second",
    default: 20,
    min: 1,
    max: 100,
  },
  {
    name: "poll-interval",
    kind: "int",
    help: "ms between two polls of a polling user (the checkout SDK polls every 1000 by default; 1000 replays that)",
    default: 2000,
    min: 100,
    max: 60_000,
  },
  {
    name: "round-trip-payments",
    kind: "int",
    help: "payments in each of the limits-on and limits-off phases that count Redis round trips",
    default: 5000,
    min: 100,
    max: 1_000_000,
  },
  {
    name: "stock",
    kind: "int",
    help: "units of one product on sale: the room guards the orders naming it, each admitted shopper orders one unit and pays it at once, and the room says sold out when the last is paid (0: the room guards payments and each admitted shopper pays once)",
    default: 0,
    min: 0,
    max: 1_000_000,
  },
  {
    name: "crowd-processes",
    kind: "int",
    help: "client processes the shoppers' sockets, polls and payments are spread over (shopper i in process i % N; the bench's own is one, and sends every join); more than one when --websockets passes a process's open files",
    default: 1,
    min: 1,
    max: 8,
  },
  { name: "workers", kind: "int", help: "Floodgate worker processes (WORKERS)", default: 2, min: 1, max: 64 },
  {
    name: "compare-checkout",
    kind: "path",
    help: "also run the same sale on the system of another checkout of this repository (e.g. a git worktree of the commit before a change, dependencies installed), one system at a time, the order alternating each round: before and after a change in one run",
  },
  {
    name: "rounds",
    kind: "optional-int",
    help: "with --compare-checkout: rounds of one sale a side, which side goes first alternating",
    default: DEFAULT_COMPARISON_ROUNDS,
    min: 1,
    max: 20,
  },
];

export interface FlashSaleOptions {
  users: number;
  admit: number;
  websockets: number;
  joinSeconds: number;
  startsInSeconds: number;
  connections: number;
  slices: number;
  pollIntervalMs: number;
  roundTripPayments: number;
  /** 0: a payments room; else a sale room over one product of this many units. */
  stock: number;
  /** Client processes of the crowd (crowd-parts.ts), the bench's own included. */
  crowdProcesses: number;
  workers: number;
  /** Another checkout whose system runs the same sale in alternate turns (the "before" of a change), or null. */
  compareCheckout: string | null;
  /** Rounds of the comparison (one sale a side each); null without --compare-checkout. */
  rounds: number | null;
}

export function toFlashSaleOptions(values: OptionValues): FlashSaleOptions {
  const int = (name: string) => values[name] as number;
  const options: FlashSaleOptions = {
    users: int("users"),
    admit: int("admit"),
    websockets: Math.min(int("websockets"), int("users")),
    joinSeconds: int("join-seconds"),
    startsInSeconds: int("starts-in"),
    connections: int("connections"),
    slices: int("slices"),
    pollIntervalMs: int("poll-interval"),
    roundTripPayments: int("round-trip-payments"),
    stock: int("stock"),
    crowdProcesses: int("crowd-processes"),
    workers: int("workers"),
    compareCheckout: typeof values["compare-checkout"] === "string" ? values["compare-checkout"] : null,
    rounds: null,
  };
  if (options.compareCheckout !== null) {
    options.rounds = values.rounds === null ? DEFAULT_COMPARISON_ROUNDS : int("rounds");
  } else if (values.rounds !== null) {
    throw new OptionError("--rounds counts the rounds of a comparison: give it with --compare-checkout DIR");
  }
  return options;
}
