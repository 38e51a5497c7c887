// Builds the intake; server.ts listens. Tests drive buildApp() with app.inject() and no socket.
import cors from "@fastify/cors";
import type { Config } from "@floodgate/config";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import { sendProblem } from "./errors/problem-reply.ts";
import { LoadShedder } from "./load-shedding/load-shedder.ts";
import { rawShedding, sheddingServerFactory } from "./load-shedding/shedding-server.ts";
import { lazyRequestLogger } from "./logging/lazy-request-logger.ts";
import { admissionPlugin } from "./plugins/admission-plugin.ts";
import { authPlugin } from "./plugins/auth-plugin.ts";
import { couponsPlugin } from "./plugins/coupons-plugin.ts";
import { demoPlugin } from "./plugins/demo-plugin.ts";
import { globalDbPlugin } from "./plugins/global-db-plugin.ts";
import { jsonBodyPlugin } from "./plugins/json-body-plugin.ts";
import { loadSheddingPlugin } from "./plugins/load-shedding-plugin.ts";
import { metricsPlugin } from "./plugins/metrics-plugin.ts";
import { docsRoutes, openapiPlugin } from "./plugins/openapi-plugin.ts";
import { problemPlugin } from "./plugins/problem-plugin.ts";
import { redisPlugin } from "./plugins/redis-plugin.ts";
import { requestIdPlugin } from "./plugins/request-id-plugin.ts";
import { shardsPlugin } from "./plugins/shards-plugin.ts";
import { closeUpgradeAfterAnswer, websocketPlugin } from "./plugins/websocket-plugin.ts";
import { requestIdFor } from "./request-ids/request-id.ts";
import { admissionCheckRoute } from "./routes/admission-check-route.ts";
import { apiKeysAdminRoute } from "./routes/api-keys-admin-route.ts";
import { catalogProductsRoute } from "./routes/catalog-products-route.ts";
import { couponIssuesRoute } from "./routes/coupon-issues-route.ts";
import { couponsAdminRoute } from "./routes/coupons-admin-route.ts";
import { customerSessionsRoute } from "./routes/customer-sessions-route.ts";
import { eventsRoute } from "./routes/events-route.ts";
import { healthRoutes } from "./routes/health-routes.ts";
import { joinPassesRoute } from "./routes/join-passes-route.ts";
import { jwksRoute } from "./routes/jwks-route.ts";
import { operationSocketRoute } from "./routes/operation-socket-route.ts";
import { orderListRoute } from "./routes/order-list-route.ts";
import { ordersRoute } from "./routes/orders-route.ts";
import { paymentsRoute } from "./routes/payments-route.ts";
import { productsAdminRoute } from "./routes/products-admin-route.ts";
import { providerPaymentsRoute } from "./routes/provider-payments-route.ts";
import { rateLimitsAdminRoute } from "./routes/rate-limits-admin-route.ts";
import { refundsRoute } from "./routes/refunds-route.ts";
import { roomTicketsRoute } from "./routes/room-tickets-route.ts";
import { roomsAdminRoute } from "./routes/rooms-admin-route.ts";
import { shuffleProofRoute } from "./routes/shuffle-proof-route.ts";
import { userCouponsRoute } from "./routes/user-coupons-route.ts";
import { walletsRoute } from "./routes/wallets-route.ts";
import { webhookEndpointsRoute } from "./routes/webhook-endpoints-route.ts";

declare module "fastify" {
  interface FastifyInstance {
    config: Config;
    /** Set on SIGTERM (drain-then-close.ts): /readyz answers 503 from then on. */
    lifecycle: { draining: boolean };
  }
}

export const BODY_LIMIT_BYTES = 16 * 1024;

export async function buildApp(
  config: Config,
  options: Pick<FastifyServerOptions, "logger"> = {},
): Promise<FastifyInstance> {
  // Made before Fastify: its server's request listener refuses hot POSTs while the shedder sheds.
  const shedding = rawShedding(
    new LoadShedder({ loopDelayMs: config.loadShedLoopDelayMs, redisWaitMs: config.loadShedRedisWaitMs }),
  );
  const app = Fastify({
    serverFactory: sheddingServerFactory(shedding),
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: BODY_LIMIT_BYTES,
    // request.ip is what the IP rate limits key on: the socket's address unless TRUST_PROXY names proxies.
    // (A hop count as the equivalent function: Fastify's types do not list the number form.)
    trustProxy:
      typeof config.trustProxy === "number"
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    // Long enough that an over-long id or userId reaches its schema (a 400 naming the field), not the router.
    routerOptions: { maxParamLength: 512 },
    // The router's own refusals (bad percent-encoding, a longer parameter) answer problem+json too.
    frameworkErrors: (error, request, reply) => {
      closeUpgradeAfterAnswer(request, reply);
      return (error.statusCode ?? 500) < 500
        ? sendProblem(request, reply, "validation_error", { field: "path", detail: error.message })
        : sendProblem(request, reply, "internal_error");
    },
    // The caller's x-request-id when it is safe to log and echo, else a UUID: every log line's reqId.
    requestIdHeader: false,
    genReqId: requestIdFor,
    // Per-request logs would cost more than the request itself at 10k/s; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log makes its pino child (the reqId binding) only when the request logs something.
    childLoggerFactory: lazyRequestLogger,
    ajv: {
      // Strict input: "100" is not 100, unknown fields are refused rather than silently dropped.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: false },
    },
  });
  // JSON only: Fastify's built-in text/plain parser would turn a text body into a 400 about its type.
  app.removeContentTypeParser("text/plain");
  app.decorate("config", config);
  app.decorate("lifecycle", { draining: false });
  await app.register(requestIdPlugin);
  await app.register(problemPlugin);
  await app.register(jsonBodyPlugin);
  if (config.corsOrigins.length > 0) {
    // Shop pages on these origins may call the API (the checkout SDK): the headers it sends and must read.
    await app.register(cors, {
      origin: config.corsOrigins,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      allowedHeaders: ["content-type", "idempotency-key", "admission-token", "authorization", "x-request-id"],
      exposedHeaders: [
        "location",
        "retry-after",
        "ratelimit",
        "ratelimit-policy",
        "idempotent-replayed",
        "x-request-id",
      ],
      maxAge: 600,
    });
  }
  // Before every route, /metrics included: the OpenAPI document is made of the routes registered after it.
  await app.register(openapiPlugin);
  await app.register(metricsPlugin);
  await app.register(redisPlugin, { config, shedder: shedding.shedder });
  // The global database before the shards: the shard map is read from it.
  await app.register(globalDbPlugin, { config });
  await app.register(shardsPlugin, { config });
  await app.register(couponsPlugin);
  await app.register(websocketPlugin);
  await app.register(admissionPlugin, { config });
  // Before auth: a shed request costs no signature check.
  await app.register(loadSheddingPlugin, { shedding });
  // Before every route: its onRequest hook authenticates each one registered after it.
  await app.register(authPlugin, { config });
  await app.register(docsRoutes);
  await app.register(healthRoutes);
  await app.register(paymentsRoute);
  await app.register(walletsRoute);
  await app.register(refundsRoute);
  await app.register(couponsAdminRoute);
  await app.register(couponIssuesRoute);
  await app.register(userCouponsRoute);
  await app.register(productsAdminRoute);
  await app.register(ordersRoute);
  await app.register(orderListRoute);
  await app.register(providerPaymentsRoute);
  await app.register(roomsAdminRoute);
  await app.register(joinPassesRoute);
  await app.register(roomTicketsRoute);
  await app.register(shuffleProofRoute);
  await app.register(jwksRoute);
  await app.register(admissionCheckRoute);
  await app.register(rateLimitsAdminRoute);
  await app.register(operationSocketRoute);
  await app.register(catalogProductsRoute);
  await app.register(apiKeysAdminRoute);
  await app.register(customerSessionsRoute);
  await app.register(webhookEndpointsRoute);
  await app.register(eventsRoute);
  await app.register(demoPlugin);
  return app;
}
