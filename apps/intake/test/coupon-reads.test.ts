// After a worker recorded the issues: GET /v1/coupon-issues/:id from Redis while recent and from the user's
// shard after the status expired, and GET /v1/users/:userId/coupons from the shard, newest first.
import { parseOperationId } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, createCoupon, issue } from "./support/coupon-test-kit.ts";
import { expectProblem, get, statusKey, waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("coupon-reads", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

const settled = (url: string) =>
  waitUntil(
    () => get(app, url),
    (r) => r.statusCode === 200 && r.json().status !== "pending",
    `${url} to settle`,
  ).then((r) => r.json());

describe("once a worker applied the issues", () => {
  it("reports succeeded from Redis, then the same view from the user's shard after the status expired", async () => {
    const first = await createCoupon(app, { name: "first" });
    const second = await createCoupon(app, { name: "second" });
    const a = await issue(app, first.id, "reader-1");
    // Later acceptance time: listed first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await issue(app, second.id, "reader-1");
    const other = await issue(app, first.id, "reader-2");
    for (const r of [a, b, other]) expect(r.statusCode).toBe(202);

    // Accepted is not applied: nothing is on the shard before a worker runs.
    expect((await get(app, "/v1/users/reader-1/coupons")).json()).toEqual({
      userId: "reader-1",
      coupons: [],
    });

    worker = await startWorkerProcess(env.config);
    const fromRedis = await settled(a.headers.location as string);
    expect(fromRedis).toEqual({
      id: a.json().id,
      couponId: first.id,
      userId: "reader-1",
      status: "succeeded",
      createdAt: expect.any(String),
      completedAt: expect.any(String),
    });
    await settled(b.headers.location as string);
    await settled(other.headers.location as string);

    expect(await app.redis.del(statusKey(app, a.json().id))).toBe(1);
    const fromShard = await get(app, a.headers.location as string);
    expect(fromShard.statusCode).toBe(200);
    expect(fromShard.json()).toEqual({ ...fromRedis, completedAt: expect.any(String) });
    expect(Date.parse(fromShard.json().completedAt)).toBeGreaterThanOrEqual(Date.parse(fromRedis.createdAt));

    // The row is on the shard the id names.
    const row = await app.shards
      .forBucket(parseOperationId(a.json().id)!.bucket)
      .selectFrom("issued_coupons")
      .selectAll()
      .where("id", "=", a.json().id)
      .executeTakeFirst();
    expect(row).toMatchObject({ coupon_id: first.id, user_id: "reader-1", status: "issued", used_at: null });

    const list = await get(app, "/v1/users/reader-1/coupons");
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      userId: "reader-1",
      coupons: [
        {
          id: b.json().id,
          couponId: second.id,
          status: "issued",
          usedAt: null,
          createdAt: expect.any(String),
          issuedAt: expect.any(String),
        },
        {
          id: a.json().id,
          couponId: first.id,
          status: "issued",
          usedAt: null,
          createdAt: fromRedis.createdAt,
          issuedAt: fromShard.json().completedAt,
        },
      ],
    });
    expect(
      (await get(app, "/v1/users/reader-2/coupons")).json().coupons.map((c: { id: string }) => c.id),
    ).toEqual([other.json().id]);
  });

  it("lists nothing for a user without coupons, and refuses a malformed userId", async () => {
    expect((await get(app, "/v1/users/nobody-here/coupons")).json()).toEqual({
      userId: "nobody-here",
      coupons: [],
    });
    expectProblem(await get(app, "/v1/users/a%20b/coupons"), 400, "validation_error", "userId");
    expectProblem(await get(app, `/v1/users/${"u".repeat(65)}/coupons`), 400, "validation_error", "userId");
  });
});
