// Orders do not run on a Redis Cluster yet (routes/redis-cluster-guard.ts): there, they are refused with 501
// not_on_redis_cluster before anything is stored; on one Redis the same request reaches its reservation. Coupon
// issues run on both (an unknown coupon is a 404 on both). Runs in both test projects (packages/test-fixtures/src/cluster-suites.ts).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { expectProblem, post, prefixKeys } from "./support/intake-test-kit.ts";

const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("redis-cluster-guard");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const issue = () =>
  post(
    app,
    "/v1/coupons/cpn_00000000000000000000000000/issues",
    { userId: "guarded" },
    { "idempotency-key": "g-1" },
  );
const order = () =>
  post(
    app,
    "/v1/orders",
    { userId: "guarded", items: [{ productId: "prd_00000000000000000000000000", quantity: 1 }] },
    { "idempotency-key": "g-2" },
  );

describe(onCluster ? "on a Redis Cluster" : "on one Redis", () => {
  it(
    onCluster
      ? "refuses orders with 501 not_on_redis_cluster, storing nothing; an unknown coupon is 404"
      : "takes coupon issues and orders to their reservation (an unknown coupon or product is 404)",
    async () => {
      const before = await prefixKeys(app);
      expectProblem(await issue(), 404, "not_found");
      for (const [answer, what] of [[await order(), "orders"]] as const) {
        if (onCluster) {
          const body = expectProblem(answer, 501, "not_on_redis_cluster");
          expect(body.detail).toBe(
            `${what} do not run on a Redis Cluster yet (REDIS_URL is a redis+cluster:// URL): nothing was stored`,
          );
          expect(body.retryable).toBe(false);
        } else {
          expectProblem(answer, 404, "not_found");
        }
      }
      if (onCluster) expect(await prefixKeys(app)).toEqual(before);
    },
  );
});
