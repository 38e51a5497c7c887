// Coupon definitions never change after creation, so each intake process keeps every one it has seen: after
// the first request for a coupon, issuing it costs no Postgres query. Concurrent first requests share one
// load. An unknown id is remembered for a second only (a coupon created on another intake a moment later
// must become visible), and that memory is bounded, so random ids cannot grow it without limit.
import type { CouponDefinition } from "@floodgate/domain";

const MISS_TTL_MS = 1000;
const MAX_MISSES = 10_000;

export class CouponDefinitionCache {
  readonly #known = new Map<string, CouponDefinition>();
  readonly #loading = new Map<string, Promise<CouponDefinition | null>>();
  readonly #missingUntil = new Map<string, number>();
  readonly #load: (id: string) => Promise<CouponDefinition | null>;

  constructor(load: (id: string) => Promise<CouponDefinition | null>) {
    this.#load = load;
  }

  /** The definition if this process holds it: no promise, for the hot path. */
  cached(id: string): CouponDefinition | undefined {
    return this.#known.get(id);
  }

  async find(id: string): Promise<CouponDefinition | null> {
    const known = this.#known.get(id);
    if (known) return known;
    if ((this.#missingUntil.get(id) ?? 0) > Date.now()) return null;
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = this.#load(id)
        .then((definition) => {
          if (definition) this.#known.set(id, definition);
          else this.#rememberMissing(id);
          return definition;
        })
        .finally(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
    }
    return loading;
  }

  /** A definition this process just created. */
  remember(definition: CouponDefinition): void {
    this.#missingUntil.delete(definition.id);
    this.#known.set(definition.id, definition);
  }

  /** Every definition this process holds (for the remaining-coupons gauge). */
  all(): CouponDefinition[] {
    return [...this.#known.values()];
  }

  #rememberMissing(id: string): void {
    if (this.#missingUntil.size >= MAX_MISSES) this.#missingUntil.clear();
    this.#missingUntil.set(id, Date.now() + MISS_TTL_MS);
  }
}
