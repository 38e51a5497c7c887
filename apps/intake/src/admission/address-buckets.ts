// Client-address rate limits on the request path. An address's bucket has a slot of its own ({ip-<ip>}), so it
// cannot be a key of the route's script (a cluster refuses a script across slots): its token is taken by a
// side command (take-token-1.lua) sent in the same tick as the script. The script leaves with the other requests
// of the turn (turn-batches.ts in @floodgate/redis-scripts), the token at the turn's end (auto-pipelining): the two
// are in flight together, so the request still waits ONE round trip, for two commands.
//
// The two cannot see each other, and an accepted request is never undone: when the script accepts and the
// address's bucket was empty, the answer is still 202 (an overshoot, counted, and charged to the bucket as debt
// so the address's later requests pay for it). What keeps overshoots rare is this process's view of each bucket:
// the last answer Redis gave for it, refilled at the policy's rate since that answer arrived, less this
// process's requests still in flight. A request goes to Redis only while the view holds a token for it;
// otherwise it is refused here (429, nothing sent, nothing stored). The view is read from the answer's arrival
// and Redis rounds up, so it never holds more tokens than the bucket does for this process's own requests:
// with one intake process no request passes an address's limit. Only takes by other processes since the last
// answer (and an answer lost to an error) can make it too generous. docs/api.md (Rate limits) states the bound.
import { type AddressTokenAnswer, takeAddressToken } from "@floodgate/admission";
import type { ScriptedRedis } from "@floodgate/redis-connections";

interface BucketView {
  /** When (performance.now() ms) the bucket is full again, as its last answer said; 0 before any answer. */
  fullAt: number;
  /** Side commands sent and not answered yet: each takes a token the view does not show. */
  inFlight: number;
}

/** Sent: the answer (null when the command failed); refused: ms until the view holds a token for one more. */
export type AddressTake = { sent: Promise<AddressTokenAnswer | null> } | { refusedForMs: number };

/** How often views of full, idle buckets are forgotten (a forgotten view is a full bucket, as it is). */
const SWEEP_EVERY_MS = 1000;

export class AddressBuckets {
  readonly #views = new Map<string, BucketView>();
  readonly #now: () => number;
  #sweptAt: number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#sweptAt = now();
  }

  /**
   * Takes a token from the address's bucket `key` under `bucket` ([ms between tokens, burst], ms > 0): sends the
   * side command at once when the view holds a token, else sends nothing. Call it in the same tick as the
   * route's script, so both go out together.
   */
  take(redis: ScriptedRedis, key: string, bucket: readonly [number, number]): AddressTake {
    const now = this.#now();
    this.#sweep(now);
    const [intervalMs, burst] = bucket;
    const tolerance = intervalMs * burst;
    const view = this.#views.get(key) ?? { fullAt: 0, inFlight: 0 };
    let ahead = Math.max(0, view.fullAt - now);
    // Past one burst of debt, the stored time is a replaced policy's: Redis cuts it to an empty bucket.
    if (ahead > 2 * tolerance) ahead = tolerance;
    // Tokens in the bucket = (tolerance - ahead) / interval; the requests in flight take theirs first.
    const missingMs = ahead + (view.inFlight + 1) * intervalMs - tolerance;
    if (missingMs > 0) return { refusedForMs: Math.ceil(missingMs) };

    view.inFlight++;
    this.#views.set(key, view);
    const sent = takeAddressToken(redis, key, bucket).then(
      (answer) => {
        view.inFlight--;
        view.fullAt = this.#now() + answer.resetMs;
        return answer;
      },
      () => {
        view.inFlight--;
        return null; // the token may or may not be taken: the view keeps what it knew
      },
    );
    return { sent };
  }

  /** Buckets this process holds a view of (for tests and the curious). */
  get size(): number {
    return this.#views.size;
  }

  #sweep(now: number) {
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = now;
    for (const [key, view] of this.#views) {
      if (view.inFlight === 0 && view.fullAt <= now) this.#views.delete(key);
    }
  }
}
