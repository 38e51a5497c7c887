// The stock invariant of one product, as the tests and `floodgate reconcile` check it: the databases' audit
// (packages/db stock-audit.ts) plus Redis' `available`, read through GET /v1/products/:id. Meant for a
// drained queue: only then must Redis agree with Postgres.
import {
  auditHolds,
  auditProducts,
  createKysely,
  type GlobalDatabase,
  type ProductAudit,
  type ShardDatabase,
} from "@floodgate/db";
import { adminRequest } from "../harness/admin-client.ts";

export interface StockCheck extends ProductAudit {
  /** Units new orders may still reserve, from Redis (null when its state is missing). */
  available: number | null;
  /** received = stock + live order units, ledger = live order units, stock >= 0, and Redis = Postgres. */
  holds: boolean;
}

export function checkStock(audit: ProductAudit, available: number | null): StockCheck {
  return {
    ...audit,
    available,
    holds: auditHolds(audit) && audit.stock >= 0 && available === audit.stock,
  };
}

export class StockAuditor {
  readonly #global: ReturnType<typeof createKysely<GlobalDatabase>>;
  readonly #shards: ReturnType<typeof createKysely<ShardDatabase>>[];

  constructor(databaseUrl: string, shardUrls: readonly string[]) {
    // One connection each: the bench reads after a phase, it must not compete with the workers.
    this.#global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-bench" });
    this.#shards = shardUrls.map((url) =>
      createKysely<ShardDatabase>(url, { max: 1, applicationName: "floodgate-bench" }),
    );
  }

  async check(target: { baseUrl: string; adminKey: string }, productId: string): Promise<StockCheck> {
    const [audit] = await auditProducts(this.#global, this.#shards, [productId]);
    if (!audit) throw new Error(`product ${productId} is not in the global database`);
    const product = await adminRequest(target.baseUrl, target.adminKey, "GET", `/v1/products/${productId}`);
    return checkStock(audit, typeof product.available === "number" ? product.available : null);
  }

  async close(): Promise<void> {
    await Promise.all([this.#global, ...this.#shards].map((db) => db.destroy()));
  }
}
