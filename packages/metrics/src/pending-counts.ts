// Increments of a labelled counter, kept as plain numbers on the request path and added to the counter before
// every read of it (its collect), so a scrape misses nothing. prom-client hashes the label values on every
// inc, a child's too, which on the intake's hot path cost more than the count itself (issue 30). A series is
// found by its label values in nested maps keyed by the strings the callers pass (constants, whose hashes V8
// keeps): a count is two or three lookups and an addition.
import type { Counter } from "prom-client";

interface Series {
  values: string[];
  pending: number;
}

export class PendingCounts {
  readonly #counter: Counter<string>;
  readonly #byFirst = new Map<string, Map<string, Map<string, Series> | Series>>();
  readonly #series: Series[] = [];

  constructor(counter: Counter<string>) {
    this.#counter = counter;
  }

  /** One more in the series of these label values (in the counter's labelNames order: two or three). */
  add(first: string, second: string, third?: string): void {
    let level = this.#byFirst.get(first);
    if (level === undefined) {
      level = new Map();
      this.#byFirst.set(first, level);
    }
    let entry = level.get(second);
    if (third === undefined) {
      if (entry === undefined) {
        entry = this.#open([first, second]);
        level.set(second, entry);
      }
      (entry as Series).pending++;
      return;
    }
    if (entry === undefined) {
      entry = new Map<string, Series>();
      level.set(second, entry);
    }
    const thirds = entry as Map<string, Series>;
    let series = thirds.get(third);
    if (series === undefined) {
      series = this.#open([first, second, third]);
      thirds.set(third, series);
    }
    series.pending++;
  }

  /** Adds what is pending to the counter: its collect calls this before every read. */
  flush(): void {
    for (const series of this.#series) {
      if (series.pending === 0) continue;
      this.#counter.labels(...series.values).inc(series.pending);
      series.pending = 0;
    }
  }

  #open(values: string[]): Series {
    const series = { values, pending: 0 };
    this.#series.push(series);
    return series;
  }
}
