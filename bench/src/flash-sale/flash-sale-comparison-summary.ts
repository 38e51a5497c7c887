// What a flash-sale comparison (--compare-checkout) records and prints: each sale's headline figures (joins
// answered/s, join p99, push p99, live positions) with the audits it failed, each side's medians over the
// rounds, and the ratio of the joins answered/s, this checkout over the other, against its goal, with each
// round's own ratio beside it.
import { COMPARED_CHECKOUT_GOAL } from "../harness/compared-checkout.ts";
import { median } from "../harness/median.ts";
import { formatCount } from "../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../harness/result-head.ts";
import type { SaleRecord } from "./flash-sale-run.ts";

export type SideKey = "this" | "other";

export interface ComparedSide {
  key: SideKey;
  /** "this checkout @5b97a30", "other checkout @d58f4fa". */
  label: string;
  checkout: string;
  /** Short commit, "+dirty" when the checkout had uncommitted changes. */
  commit: string | null;
}

/** The figures the comparison is about; null when the sale did not get that far. */
export interface SaleFigures {
  joinsOfferedPerS: number | null;
  joinsAnsweredPerS: number | null;
  joinP99Ms: number | null;
  pushP99Ms: number | null;
  /** WebSocket shoppers who saw a live position before their admission. */
  livePositions: number | null;
  /**
   * SYNs the kernel dropped for a full accept queue while the shoppers joined: each holds a connection
   * back 1 s or more, so a sale's joins/s moves with it (listen-queue-meter.ts). Null where not measured.
   */
  joinListenOverflows: number | null;
}

export interface ComparedSale {
  round: number;
  /** 0: the round's first sale. */
  position: number;
  side: SideKey;
  startedAt: string;
  finishedAt: string | null;
  /** Seconds waited for a quiet machine after the sale before (0 for the first), and the load average then. */
  settledS: number;
  loadAverageAtStart: number;
  /** The working directory of the system's start command, read from /proc while it ran: where it ran from. */
  ranFrom: string | null;
  figures: SaleFigures;
  /** The names of the audits that failed (FIFO, paid once, probes, round trips, stock). */
  failedAudits: string[];
  /** What stopped the sale before its checks, if anything did. */
  error: string | null;
  /** Everything the sale recorded, as a single run's result holds it. */
  run: SaleRecord;
}

export interface SideMedians extends SaleFigures {
  side: SideKey;
  sales: number;
  /** Sales that stopped early or failed an audit. */
  failedSales: number;
}

export interface ComparisonVerdict {
  name: string;
  ratio: number | null;
  goal: number;
  /** Met only when the ratio reaches the goal and every sale of both sides finished with its audits holding. */
  met: boolean;
  note: string | null;
  /**
   * Each round's own ratio, in round order (null where a side has no figure): the sides of a round run minutes
   * apart, the rounds further, and a run's spread shows here before it shows in the ratio of the medians.
   */
  roundRatios: (number | null)[];
}

export interface FlashSaleComparisonResult extends ResultHead<"flash-sale"> {
  mode: "comparison";
  sides: ComparedSide[];
  sales: ComparedSale[];
  medians: SideMedians[];
  verdict: ComparisonVerdict | null;
}

export function saleFigures(record: SaleRecord): SaleFigures {
  const sale = record.sale;
  return {
    joinsOfferedPerS: sale?.joins.offeredRate ?? null,
    joinsAnsweredPerS: sale?.joins.answeredRate ?? null,
    joinP99Ms: sale?.joins.latencyMs?.p99 ?? null,
    pushP99Ms: sale?.pushDelayMs?.p99 ?? null,
    livePositions: sale?.sockets.withPosition ?? null,
    joinListenOverflows: sale?.joins.listenQueue?.overflows ?? null,
  };
}

export const saleFailed = (sale: ComparedSale): boolean =>
  sale.error !== null || sale.failedAudits.length > 0;

const middle = (values: readonly (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null);
  const m = median(present);
  return m === null ? null : Math.round(m * 100) / 100;
};

export function sideMedians(side: SideKey, sales: readonly ComparedSale[]): SideMedians {
  const own = sales.filter((sale) => sale.side === side);
  const of = (pick: (figures: SaleFigures) => number | null) => middle(own.map((sale) => pick(sale.figures)));
  return {
    side,
    sales: own.length,
    failedSales: own.filter(saleFailed).length,
    joinsOfferedPerS: of((f) => f.joinsOfferedPerS),
    joinsAnsweredPerS: of((f) => f.joinsAnsweredPerS),
    joinP99Ms: of((f) => f.joinP99Ms),
    pushP99Ms: of((f) => f.pushP99Ms),
    livePositions: of((f) => f.livePositions),
    joinListenOverflows: of((f) => f.joinListenOverflows),
  };
}

const ratio3 = (top: number | null, bottom: number | null): number | null =>
  top === null || bottom === null || bottom === 0 ? null : Math.round((top / bottom) * 1000) / 1000;

/** this / other joins answered/s of each round, in round order. */
export function roundRatios(sales: readonly ComparedSale[]): (number | null)[] {
  const rounds = [...new Set(sales.map((sale) => sale.round))].sort((a, b) => a - b);
  const joins = (round: number, side: SideKey) =>
    sales.find((sale) => sale.round === round && sale.side === side)?.figures.joinsAnsweredPerS ?? null;
  return rounds.map((round) => ratio3(joins(round, "this"), joins(round, "other")));
}

export function comparisonVerdict(
  medians: readonly SideMedians[],
  sales: readonly ComparedSale[],
): ComparisonVerdict {
  const name = "joins answered/s, this / other";
  const own = medians.find((m) => m.side === "this");
  const other = medians.find((m) => m.side === "other");
  const top = own?.joinsAnsweredPerS ?? null;
  const bottom = other?.joinsAnsweredPerS ?? null;
  const ratio = ratio3(top, bottom);
  const failed = (own?.failedSales ?? 0) + (other?.failedSales ?? 0);
  const reached = ratio !== null && top! / bottom! >= COMPARED_CHECKOUT_GOAL;
  return {
    name,
    ratio,
    goal: COMPARED_CHECKOUT_GOAL,
    met: reached && failed === 0,
    note:
      failed > 0 ? `${failed} sale(s) stopped early or failed an audit` : ratio === null ? "no figure" : null,
    roundRatios: roundRatios(sales),
  };
}

const ms = (value: number | null) => (value === null ? "n/a" : `${value} ms`);
const count = (value: number | null) => (value === null ? "n/a" : formatCount(value));

function figuresLine(figures: SaleFigures): string {
  return `joins ${count(figures.joinsAnsweredPerS)}/s answered (offered ${count(figures.joinsOfferedPerS)}/s), join p99 ${ms(figures.joinP99Ms)}, push p99 ${ms(figures.pushP99Ms)}, ${count(figures.livePositions)} live positions, ${count(figures.joinListenOverflows)} SYNs dropped (full accept queue) while joining`;
}

function saleLine(sale: ComparedSale, label: string): string {
  const state =
    sale.error !== null
      ? `STOPPED: ${sale.error}`
      : sale.failedAudits.length > 0
        ? `AUDIT FAILED: ${sale.failedAudits.join("; ")}`
        : "audits hold";
  return `  round ${sale.round} #${sale.position + 1} ${label}: ${figuresLine(sale.figures)}; ${state} (load average ${sale.loadAverageAtStart} at start)`;
}

/** "0.94, 0.633, 0.96 (their median 0.94)": the rounds' ratios and the median of those present. */
function roundsLine(ratios: readonly (number | null)[]): string {
  const present = ratios.filter((r): r is number => r !== null);
  const middleOf = median(present);
  const listed = ratios.map((r) => (r === null ? "n/a" : String(r))).join(", ");
  return middleOf === null ? listed : `${listed} (their median ${Math.round(middleOf * 1000) / 1000})`;
}

export function summarizeComparison(result: FlashSaleComparisonResult): string[] {
  const label = (key: SideKey) => result.sides.find((side) => side.key === key)?.label ?? key;
  const verdict = result.verdict;
  return [
    ...summaryHead(result),
    `load: ${result.loadGenerator}`,
    ...result.sides.map((side) => `${side.label}: ${side.checkout}`),
    "sales, one system at a time, the first side alternating each round:",
    ...result.sales.map((sale) => saleLine(sale, label(sale.side))),
    "medians over the rounds:",
    ...result.medians.map(
      (m) =>
        `  ${label(m.side)}: ${figuresLine(m)} over ${m.sales} sale(s)${m.failedSales > 0 ? `, ${m.failedSales} FAILED` : ""}`,
    ),
    ...(verdict === null
      ? []
      : [
          `${verdict.name} = ${verdict.ratio ?? "n/a"} (goal >= ${verdict.goal}): ${verdict.met ? "met" : `NOT met${verdict.note ? ` (${verdict.note})` : ""}`}`,
          ...(verdict.roundRatios.length > 1 ? [`  each round's: ${roundsLine(verdict.roundRatios)}`] : []),
        ]),
    ...(result.error ? [`ERROR: ${result.error}`] : []),
  ];
}
