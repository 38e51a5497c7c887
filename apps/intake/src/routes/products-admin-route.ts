// Admin: put products on sale, change their price, add stock, look at them. Postgres is written first: it is
// the truth reconcile rebuilds Redis from, so a Redis state without its row can never exist to be sold.
import type { ProductIdParams } from "@floodgate/domain";
import {
  newProductId,
  type ProductChangeRequest,
  type ProductCreateRequest,
  problemResponseSchema,
  productChangeRequestSchema,
  productCreateRequestSchema,
  productIdParamsSchema,
  productResponseSchema,
} from "@floodgate/domain";
import { changeProductState, readAvailable, writeProductState } from "@floodgate/reservations";
import type { FastifyInstance } from "fastify";
import { adminRoutes } from "../auth/admin-auth.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { changeProduct, findProduct, insertProduct, productView } from "../products/product-rows.ts";
import {
  refuseWhileRedisIsAway,
  warnStateMissing,
  writeAfterCommit,
} from "../products/product-state-guards.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

// What a 503 product_state_not_written means for the caller, after "Product <id> is stored, but Redis could not
// be updated: ".
const createNotWritten = (productId: string) =>
  "it is not on sale until reconcile writes its state. " +
  `Do not create it again; GET /v1/products/${productId} shows it.`;
const changeNotWritten =
  "new orders see the old price, stock and per-user cap until reconcile catches up. " +
  "Do not repeat the change (stockAdded would count twice).";

const notFound = (productId: string) =>
  new ProblemError("not_found", { field: "productId", detail: `no product ${productId}` });

export async function productsAdminRoute(app: FastifyInstance) {
  adminRoutes(app);

  app.post<{ Body: ProductCreateRequest }>(
    "/v1/products",
    {
      schema: {
        operationId: "createProduct",
        summary: "Put a product on sale",
        tags: ["Products"],
        documented: { location: "/v1/products/{productId}" },
        body: productCreateRequestSchema,
        response: { 201: productResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      refuseWhileRedisIsAway(app.redis);
      const product = await insertProduct(app.globalDb, newProductId(), request.body);
      const available = await writeAfterCommit(request.log, product.id, createNotWritten(product.id), () =>
        writeProductState(app.redis, app.queueKeys, product),
      );
      request.log.info(
        { product: product.id, price: product.price, stock: product.stock },
        "product created",
      );
      return reply
        .code(201)
        .header("Location", `/v1/products/${product.id}`)
        .send(productView(product, available, app.config.maxUnitsPerUser));
    },
  );

  app.patch<{ Params: ProductIdParams; Body: ProductChangeRequest }>(
    "/v1/products/:productId",
    {
      schema: {
        operationId: "changeProduct",
        summary: "Change a product's price or per-user limit, or add stock",
        tags: ["Products"],
        params: productIdParamsSchema,
        body: productChangeRequestSchema,
        response: { 200: productResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { productId } = request.params;
      refuseWhileRedisIsAway(app.redis);
      const product = await changeProduct(app.globalDb, productId, request.body);
      if (!product) throw notFound(productId);
      const available = await writeAfterCommit(request.log, productId, changeNotWritten, () =>
        changeProductState(app.redis, app.queueKeys, productId, request.body),
      );
      if (available === null) warnStateMissing(request.log, productId);
      request.log.info({ product: productId, ...request.body }, "product changed");
      return productView(product, available, app.config.maxUnitsPerUser);
    },
  );

  app.get<{ Params: ProductIdParams }>(
    "/v1/products/:productId",
    {
      schema: {
        operationId: "getProduct",
        summary: "A product with its stock and availability",
        tags: ["Products"],
        params: productIdParamsSchema,
        response: { 200: productResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { productId } = request.params;
      const product = await findProduct(app.globalDb, productId);
      if (!product) throw notFound(productId);
      const [available = null] = await readAvailable(app.redis, app.queueKeys, [productId]);
      if (available === null) warnStateMissing(request.log, productId);
      return productView(product, available, app.config.maxUnitsPerUser);
    },
  );
}
