// Tokens already verified, so a shopper's next request with the same token costs a map lookup instead of a
// signature check (customer tokens, and ES256 admission tokens with their claims). Bounded: the oldest entry goes first (a Map iterates in insertion order). An entry is
// only a memo of a check that passed; its expiry is still checked on every hit.
export interface CachedVerification {
  userId: string;
  expiresAt: number;
}

export class VerifiedTokenCache<T extends { expiresAt: number } = CachedVerification> {
  readonly #entries = new Map<string, T>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(token: string): T | undefined {
    return this.#entries.get(token);
  }

  set(token: string, verified: T): void {
    if (this.#capacity === 0) return;
    if (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(token, verified);
  }

  get size(): number {
    return this.#entries.size;
  }
}
