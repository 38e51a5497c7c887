// Tokens already verified, so a shopper's next request with the same token costs a lookup instead of a
// signature check (customer tokens, and ES256 admission tokens with their claims). An entry is only a memo of a
// check that passed: a hit is the very same text, and its expiry is still checked on every hit.
//
// Not a Map keyed by the token: V8 hashes a key cut from a header (a sliced string) one character at a time
// in C++, then walks the bucket's chain comparing 200-character strings; perf's on-CPU profile of an auth-on
// intake under load put that at about 2 µs a request, half of what auth cost (issue 30, docs/capacity.md).
// Here a number read from the key's last characters (a signature's, random) picks a bucket of four slots in a
// typed array, and only a slot holding the same number has its key compared.
export interface CachedVerification {
  userId: string;
  expiresAt: number;
}

/** Slots per bucket. */
const WAYS = 4;

export class VerifiedTokenCache<T extends { expiresAt: number } = CachedVerification> {
  /**
   * Per slot two numbers: its key's fingerprint (0 when the slot is free) and its verification's expiry. A
   * bucket's are one 64-byte run (a cache line's size), so a lookup and its expiry check do not read the
   * verification (whose expiry V8 keeps as a boxed number elsewhere). Under load the table is rarely in the
   * CPU's caches: perf charged the request hook around the lookup about 1.4 µs a request (issue 30).
   */
  readonly #numbers: Float64Array;
  /** Per slot its key and its verification, side by side for the same reason. */
  readonly #entries: (string | T | undefined)[];
  /** Per bucket: the slot the next key replaces once the bucket is full (round robin, so its oldest). */
  readonly #nextWay: Uint8Array;
  readonly #buckets: number;
  readonly #capacity: number;
  #size = 0;

  /**
   * Remembers at most `capacity` keys (0: none; above four, in whole buckets of four, so 4,999 holds 4,996).
   * A full bucket gives its oldest slot to a new key, so a key can be forgotten before the whole cache is full;
   * it is verified again when it comes back.
   */
  constructor(capacity: number) {
    this.#capacity = capacity;
    // As many whole buckets as fit in the capacity (one bucket, partly used, below four).
    this.#buckets = Math.max(1, Math.floor(capacity / WAYS));
    const slots = capacity === 0 ? 0 : this.#buckets * WAYS;
    this.#numbers = new Float64Array(slots * 2);
    this.#entries = new Array<string | T | undefined>(slots * 2).fill(undefined);
    this.#nextWay = new Uint8Array(this.#buckets);
  }

  /** The verification remembered for this very key, expired or not. */
  get(key: string): T | undefined {
    const slot = this.#slotOf(key);
    return slot < 0 ? undefined : (this.#entries[slot * 2 + 1] as T);
  }

  /** The verification remembered for this very key if it expires after `now` (ms), else undefined. */
  getUnexpired(key: string, now: number): T | undefined {
    const slot = this.#slotOf(key);
    return slot < 0 || this.#numbers[slot * 2 + 1]! <= now ? undefined : (this.#entries[slot * 2 + 1] as T);
  }

  set(key: string, verified: T): void {
    if (this.#capacity === 0) return;
    const fingerprint = fingerprintOf(key);
    const bucket = fingerprint % this.#buckets;
    const slot = this.#slotFor(bucket, fingerprint);
    if (slot < 0) return;
    if (this.#numbers[slot * 2] === 0) this.#size++;
    this.#numbers[slot * 2] = fingerprint;
    this.#numbers[slot * 2 + 1] = verified.expiresAt;
    // A flat copy: a key cut from a request (a slice of its header) would keep that header alive, and each
    // comparison would read through it.
    this.#entries[slot * 2] = Buffer.from(key, "utf8").toString("utf8");
    this.#entries[slot * 2 + 1] = verified;
  }

  /** The slot holding this very key, or -1. */
  #slotOf(key: string): number {
    if (this.#capacity === 0) return -1;
    const fingerprint = fingerprintOf(key);
    const numbers = this.#numbers;
    const first = (fingerprint % this.#buckets) * WAYS;
    for (let slot = first; slot < first + WAYS; slot++) {
      if (numbers[slot * 2] === fingerprint && this.#entries[slot * 2] === key) return slot;
    }
    return -1;
  }

  /** Where a key with this fingerprint goes in its bucket: its own slot, a free one, else the oldest. */
  #slotFor(bucket: number, fingerprint: number): number {
    const first = bucket * WAYS;
    let free = -1;
    for (let slot = first; slot < first + WAYS; slot++) {
      const held = this.#numbers[slot * 2];
      // The same key again, or another with its fingerprint: the newer takes the slot (of two keys that share
      // a fingerprint, one is remembered; the other is verified again when it comes).
      if (held === fingerprint) return slot;
      if (held === 0 && free < 0) free = slot;
    }
    // Below four, the one bucket has more slots than the capacity allows.
    if (free >= 0 && this.#size < this.#capacity) return free;
    for (let tried = 0; tried < WAYS; tried++) {
      const way = this.#nextWay[bucket]!;
      this.#nextWay[bucket] = (way + 1) % WAYS;
      if (this.#numbers[(first + way) * 2] !== 0) return first + way;
    }
    return -1;
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#size;
  }
}

/** A number from the key's last eight characters, never 0 (a free slot). */
function fingerprintOf(key: string): number {
  let hash = 0x2545;
  for (let i = Math.max(0, key.length - 8); i < key.length; i++) {
    hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  }
  return (hash & 0x3fffffff) | 0x40000000;
}
