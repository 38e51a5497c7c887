// Load shedding: when this process's event loop runs late, requests already wait in its sockets longer than a
// client will; when Redis answers late, every accepted request waits in its queue, and HTTP/1.1 answers a
// connection's requests in order, so the refusals behind them wait too. Taking them all only makes every
// answer later (then client timeouts, retries, more load). So while either is late, the process admits only a
// share of API calls and answers the rest `503 busy` with Retry-After before anything else runs (no
// authentication, no body, no Redis).
//
// A share, not all-or-nothing: an on/off switch admits everything until the loop is late again, so over a
// burst it takes in about as much as with no shedding, and the machine's CPU goes to accepting work it cannot
// keep up with instead of answering. The share halves every window the loop is late and grows back in steps
// while it is on time (AIMD, as TCP's congestion window): it settles where this process answers everything it
// is sent and accepts what the machine can carry.
import { monitorEventLoopDelay } from "node:perf_hooks";

/** How often the delay is judged: short enough to react within a burst, long enough to hold samples. */
export const SHED_WINDOW_MS = 100;
/** The monitor's sampling timer (ms). */
const RESOLUTION_MS = 10;
/** Never below: a trickle still gets through (a shop's retries), and the share has something to grow from. */
export const MIN_ADMIT_SHARE = 0.02;
/** Added per on-time window: from the floor back to everything in about a second. */
const ADMIT_STEP = 0.1;

/** A window's verdict: some signal over its limit, every one under half of it, or in between. */
export type Lateness = "late" | "on-time" | "between";

/** One signal's mean against its limit; a NaN mean (no samples) is in between. */
export function latenessOf(valueMs: number, limitMs: number): Lateness {
  if (!Number.isFinite(valueMs)) return "between";
  if (valueMs > limitMs) return "late";
  return valueMs < limitMs / 2 ? "on-time" : "between";
}

/**
 * The window's verdict from both signals; a limit of 0 leaves its signal out. A loop without samples (blocked
 * the whole window) holds the share; Redis without answers says nothing (an idle process recovers).
 */
export function windowLateness(
  loop: { valueMs: number; limitMs: number },
  redis: { valueMs: number; limitMs: number },
): Lateness {
  const verdicts: Lateness[] = [];
  if (loop.limitMs > 0) verdicts.push(latenessOf(loop.valueMs, loop.limitMs));
  if (redis.limitMs > 0 && Number.isFinite(redis.valueMs))
    verdicts.push(latenessOf(redis.valueMs, redis.limitMs));
  if (verdicts.includes("late")) return "late";
  return verdicts.every((verdict) => verdict === "on-time") ? "on-time" : "between";
}

/**
 * The next window's admitted share of API calls: halved when late, one step up when on time, kept in between
 * (without that gap a process that catches up by shedding would flip every window).
 */
export function nextAdmitShare(share: number, lateness: Lateness): number {
  if (lateness === "late") return Math.max(MIN_ADMIT_SHARE, share / 2);
  if (lateness === "on-time") return Math.min(1, Math.round((share + ADMIT_STEP) * 1000) / 1000);
  return share;
}

export interface ShedTransition {
  shedding: boolean;
  loopDelayMs: number;
  redisWaitMs: number;
  admitShare: number;
}

export interface ShedLimits {
  /** Event-loop delay (LOAD_SHED_LOOP_DELAY_MS); 0: not a signal. */
  loopDelayMs: number;
  /** Mean Redis answer time (LOAD_SHED_REDIS_WAIT_MS); 0: not a signal. */
  redisWaitMs: number;
}

export class LoadShedder {
  readonly limits: ShedLimits;
  /** Share of API calls admitted: 1 while the process is on time. */
  admitShare = 1;
  /** The last window's mean event-loop delay beyond the monitor's own resolution, ms. */
  loopDelayMs = 0;
  /** The last window's mean time Redis took to answer this process's commands, ms (0 with none). */
  redisWaitMs = 0;
  #redisWaitSum = 0;
  #redisAnswers = 0;
  #timer: NodeJS.Timeout | undefined;
  #histogram: ReturnType<typeof monitorEventLoopDelay> | undefined;

  /** With both limits 0 it never sheds. */
  constructor(limits: ShedLimits) {
    this.limits = limits;
  }

  get enabled(): boolean {
    return this.limits.loopDelayMs > 0 || this.limits.redisWaitMs > 0;
  }

  /** One Redis command's answer time (the Redis connection's wrapper calls it). */
  noteRedisWait(ms: number): void {
    this.#redisWaitSum += ms;
    this.#redisAnswers++;
  }

  /** Called per API call: refuse this one? Almost always `false` at the first comparison. */
  shouldShed(): boolean {
    return this.admitShare < 1 && Math.random() >= this.admitShare;
  }

  /** Starts judging every window; `onTransition` hears when shedding starts or stops, `onWindow` each share. */
  start(onTransition: (transition: ShedTransition) => void, onWindow?: (admitShare: number) => void): void {
    if (!this.enabled || this.#timer !== undefined) return;
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    this.#histogram = histogram;
    this.#timer = setInterval(() => {
      // The monitor counts its own resolution in every sample; what is above it is lateness.
      const loopDelayMs = histogram.count === 0 ? Number.NaN : histogram.mean / 1e6 - RESOLUTION_MS;
      histogram.reset();
      const redisWaitMs = this.#redisAnswers === 0 ? Number.NaN : this.#redisWaitSum / this.#redisAnswers;
      this.#redisWaitSum = 0;
      this.#redisAnswers = 0;
      this.observe(loopDelayMs, redisWaitMs, onTransition);
      onWindow?.(this.admitShare);
    }, SHED_WINDOW_MS);
    this.#timer.unref();
  }

  /** One window's verdict (start() calls it; tests call it with the means they want; NaN: no samples). */
  observe(
    loopDelayMs: number,
    redisWaitMs: number,
    onTransition?: (transition: ShedTransition) => void,
  ): void {
    const wasShedding = this.admitShare < 1;
    const lateness = windowLateness(
      { valueMs: loopDelayMs, limitMs: this.limits.loopDelayMs },
      { valueMs: redisWaitMs, limitMs: this.limits.redisWaitMs },
    );
    this.admitShare = nextAdmitShare(this.admitShare, lateness);
    if (Number.isFinite(loopDelayMs)) this.loopDelayMs = loopDelayMs;
    this.redisWaitMs = Number.isFinite(redisWaitMs) ? redisWaitMs : 0;
    const shedding = this.admitShare < 1;
    if (shedding !== wasShedding) {
      onTransition?.({
        shedding,
        loopDelayMs: this.loopDelayMs,
        redisWaitMs: this.redisWaitMs,
        admitShare: this.admitShare,
      });
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#histogram?.disable();
    this.#histogram = undefined;
  }

  /** The 503's detail: why, and what the caller should do. */
  detail(): string {
    const { loopDelayMs, redisWaitMs } = this.limits;
    const loop = `its event loop is ${Math.round(this.loopDelayMs)} ms late${loopDelayMs > 0 ? ` (limit ${loopDelayMs} ms)` : ""}`;
    const redis = `Redis answers in ${Math.round(this.redisWaitMs)} ms${redisWaitMs > 0 ? ` (limit ${redisWaitMs} ms)` : ""}`;
    return `this intake is behind: ${loop} and ${redis}; it admits ${Math.round(this.admitShare * 100)} % of API calls until it catches up: nothing was done; retry with the same Idempotency-Key`;
  }
}
