// Product names for the public catalog route, kept in this process: a name never changes (the admin routes
// cannot write it), so once read it stays right, and a warm catalog read is one Redis call, no Postgres.
import type { ProductDefinition } from "@floodgate/domain";

/** Bounded: ids of unknown products are never kept, and a full map starts over rather than grow. */
const MAX_NAMES = 10_000;

export class CatalogProductNames {
  readonly #names = new Map<string, string>();

  get(productId: string): string | undefined {
    return this.#names.get(productId);
  }

  remember(product: Pick<ProductDefinition, "id" | "name">): void {
    if (this.#names.size >= MAX_NAMES) this.#names.clear();
    this.#names.set(product.id, product.name);
  }
}
