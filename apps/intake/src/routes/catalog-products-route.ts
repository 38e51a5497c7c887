// GET /v1/catalog/products/:productId: what a shop page shows of a product (no admin key): its name, its
// price and the units new orders may still reserve. Price and availability come from the Redis state orders
// reserve against (one call); the name from this process's memory once Postgres gave it.
import type { ProductIdParams } from "@floodgate/domain";
import {
  catalogProductResponseSchema,
  problemResponseSchema,
  productIdParamsSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";
import { CatalogProductNames } from "../products/catalog-product-names.ts";
import { findProduct } from "../products/product-rows.ts";
import { warnStateMissing } from "../products/product-state-guards.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function catalogProductsRoute(app: FastifyInstance) {
  const names = new CatalogProductNames();

  app.get<{ Params: ProductIdParams }>(
    "/v1/catalog/products/:productId",
    {
      // The public catalogue: what a shop page shows anyone before they sign in.
      config: { auth: "public" },
      schema: {
        operationId: "getCatalogProduct",
        summary: "A product as a shop page shows it: name, price, units available",
        tags: ["Products"],
        params: productIdParamsSchema,
        response: { 200: catalogProductResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { productId } = request.params;
      const [price, available] = await app.redis.hmget(
        app.queueKeys.productState(productId),
        "price",
        "available",
      );
      let name = names.get(productId);
      let storedPrice: number | undefined;
      // Postgres only for a product not seen yet, or one whose Redis state is missing.
      if (name === undefined || price === null || available === null) {
        const product = await findProduct(app.globalDb, productId);
        if (!product) {
          throw new ProblemError("not_found", { field: "productId", detail: `no product ${productId}` });
        }
        names.remember(product);
        name = product.name;
        storedPrice = product.price;
        if (available === null) warnStateMissing(request.log, productId);
      }
      return {
        id: productId,
        name,
        price: price === null ? storedPrice : Number(price),
        currency: app.config.currency,
        // Without its Redis state the product takes no orders (reconcile rebuilds it): none available.
        available: available === null ? 0 : Math.max(0, Number(available)),
      };
    },
  );
}
