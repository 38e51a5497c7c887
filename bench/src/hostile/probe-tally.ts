// What one probe saw: every answer counted by status, every connection that ended without one, and each 202
// kept (with the credential that made it) for the accepted-and-lost audit.
import { headerOf, type RawAnswer } from "./raw-http-exchange.ts";

export interface ProbeResult {
  name: string;
  requests: number;
  /** "202", "400", ... "none" for a connection that ended without a status line, or a probe's own outcome
   * name ("dropped unread", "101 close 4401"). */
  statusCounts: Record<string, number>;
  /** 5xx answers, plus server failures a status cannot show (a WebSocket closed 1011, internal error). Load
   * shedding's `503 busy` with Retry-After is not one: it is counted under "503 busy (shed)". */
  fiveXx: number;
  connectionErrors: number;
  notes: string[];
}

/** A request the intake answered 202: where its status is read, and as whom. */
export interface AcceptedRequest {
  probe: string;
  location: string;
  authorization: string;
}

/** The status key of load shedding's answers: not a 5xx key (it does not start with "5"). */
export const SHED_STATUS = "shed: 503 busy";

/** Load shedding's refusal: `503` with `Retry-After` and the `busy` problem (apps/intake/src/load-shedding/). */
export function isShedAnswer(answer: RawAnswer): boolean {
  if (answer.status !== 503 || headerOf(answer.head, "retry-after") === null) return false;
  try {
    return (JSON.parse(answer.body) as { code?: unknown }).code === "busy";
  } catch {
    return false;
  }
}

export class ProbeTally {
  readonly name: string;
  readonly accepted: AcceptedRequest[] = [];
  readonly notes: string[] = [];
  #requests = 0;
  #connectionErrors = 0;
  #serverFailures = 0;
  readonly #statusCounts: Record<string, number> = {};
  /** A few examples of each 5xx and connection error, for the report: the counts alone do not say where. */
  readonly #examples = new Map<string, number>();

  constructor(name: string) {
    this.name = name;
  }

  /** Counts a raw answer; `label` names the case (kept in a note when it earned a 5xx or no answer). */
  add(answer: RawAnswer, label: string, authorization = ""): void {
    if (isShedAnswer(answer)) {
      // The intake refusing work it cannot answer in time (its event loop or Redis late), as designed under
      // load: the client is told when to come back, nothing failed. Counted apart, so a real 5xx still fails.
      this.count(SHED_STATUS, null, label);
      this.example(`${label}: 503 busy (shed) ${answer.body.slice(0, 200)}`);
      return;
    }
    this.count(answer.status, answer.error, label);
    if (answer.status === 202) {
      const location = headerOf(answer.head, "location");
      if (location === null) this.note(`${label}: 202 without a Location`);
      else this.accepted.push({ probe: this.name, location, authorization });
    }
    if (answer.status !== null && answer.status >= 500) {
      this.example(`${label}: ${answer.status} ${answer.body.slice(0, 300)}`);
    }
  }

  /** Counts an outcome by status or name; null with an error is a connection that ended without an answer. */
  count(status: number | string | null, error: string | null, label: string): void {
    this.#requests++;
    const key = status === null ? "none" : String(status);
    this.#statusCounts[key] = (this.#statusCounts[key] ?? 0) + 1;
    if (status === null && error !== null) {
      this.#connectionErrors++;
      this.example(`${label}: no answer (${error})`);
    }
  }

  /** A server failure that is not a 5xx status (counted in fiveXx). */
  serverFailure(line: string): void {
    this.#serverFailures++;
    this.example(line);
  }

  note(line: string): void {
    this.notes.push(line);
  }

  result(): ProbeResult {
    const fiveXx = Object.entries(this.#statusCounts)
      .filter(([status]) => status.startsWith("5"))
      .reduce((sum, [, n]) => sum + n, this.#serverFailures);
    const examples = [...this.#examples].map(([line, n]) => (n > 1 ? `${line} (x${n})` : line));
    return {
      name: this.name,
      requests: this.#requests,
      statusCounts: { ...this.#statusCounts },
      fiveXx,
      connectionErrors: this.#connectionErrors,
      notes: [...this.notes, ...examples],
    };
  }

  #exampleLimit = 20;
  /** Keeps `line` (up to 20 distinct ones, repeats counted) for the notes. */
  example(line: string): void {
    const seen = this.#examples.get(line);
    if (seen !== undefined) this.#examples.set(line, seen + 1);
    else if (this.#examples.size < this.#exampleLimit) this.#examples.set(line, 1);
  }
}
