// POST /v1/coupons/:couponId/issues, the contract: 202 once reserved and enqueued by one Lua call; every
// refusal is problem+json with its own code, and enqueues and writes nothing.
import { decodeOperationMessage, parseOperationId } from "@floodgate/domain";
import { MAX_REQUESTS_PER_CALL } from "@floodgate/queue";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, createCoupon, isoIn, issue } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  findStreamEntry,
  get,
  metricValue,
  post,
  reservationsStruckOff,
  statusKey,
  streamLengths,
  withCredentials,
} from "./support/intake-test-kit.ts";
import {
  type ContractDocument,
  documentedAnswer,
  expectDocumentedAnswer,
  servedDocument,
} from "./support/openapi-contract.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let document: ContractDocument;

beforeAll(async () => {
  env = await createTestEnvironment("coupon-issues", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  document = await servedDocument(app);
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const scrape = async () => (await get(app, "/metrics")).body;
const decisions = async (outcome: string) => {
  try {
    return metricValue(await scrape(), "floodgate_coupon_issue_decisions_total", { outcome });
  } catch {
    return 0; // no such outcome counted yet
  }
};

/**
 * Runs `request`, which must be refused, and checks that nothing was enqueued (no stream grew) and that the
 * coupon's reservation state did not change. (The script writes a status only together with its stream
 * entry, so unchanged streams also mean no status was written.)
 */
/**
 * A refusal of the coupon itself: errors[] names couponId (README: errors[] on every error), and the answer
 * is the one the document gives issueCoupon for its status, whose Problem schema has errors[].
 */
function expectCouponRefusal(response: LightMyRequestResponse, status: number, code: string) {
  const body = expectProblem(response, status, code, "couponId");
  expect(body.errors).toEqual([{ field: "couponId", detail: body.detail }]);
  expectDocumentedAnswer(document, "issueCoupon", response);
  const documented = documentedAnswer(document, "issueCoupon", status)!;
  expect(documented.content?.["application/problem+json"]?.schema).toMatchObject({
    properties: { errors: { type: "array" } },
  });
  return body;
}

async function refusedWithoutWrites(couponId: string, request: () => Promise<LightMyRequestResponse>) {
  const couponState = () =>
    Promise.all([
      app.redis.hgetall(app.queueKeys.couponState(couponId)),
      app.redis.hgetall(app.queueKeys.couponHolders(couponId)),
    ]);
  const [streams, state] = [await streamLengths(app), await couponState()];
  const response = await request();
  expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
  expect(await streamLengths(app)).toEqual(streams);
  expect(await couponState()).toEqual(state);
  return response;
}

describe("an accepted issue", () => {
  it("answers 202 {id, pending} + Location once reserved, with the message in the user's partition", async () => {
    const coupon = await createCoupon(app, { quantity: 5 });
    const before = await streamLengths(app);
    const response = await issue(app, coupon.id, "holder-1");
    expect(response.statusCode, response.body).toBe(202);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.stringMatching(/^cis_/), status: "pending" });
    expect(response.headers.location).toBe(`/v1/coupon-issues/${id}`);
    expect(parseOperationId(id)).toMatchObject({ kind: "coupon_issue", bucket: bucketForUser("holder-1") });

    const partition = app.queueKeys.partitionForUser("holder-1");
    const after = await streamLengths(app);
    expect(after.map((n, p) => n - before[p]!)).toEqual(before.map((_, p) => (p === partition ? 1 : 0)));
    const entry = await findStreamEntry(app, id);
    expect(entry?.partition).toBe(partition);
    const message = decodeOperationMessage(entry!.fields.m!);
    expect(message).toEqual({
      v: 1,
      kind: "coupon_issue",
      id,
      userId: "holder-1",
      couponId: coupon.id,
      createdAt: expect.any(Number),
    });

    expect(await app.redis.hgetall(statusKey(app, id))).toEqual({
      status: "pending",
      message: entry!.fields.m,
    });
    expect(await app.redis.hget(app.queueKeys.couponHolders(coupon.id), "holder-1")).toBe(id);
    expect(await app.redis.hget(app.queueKeys.couponState(coupon.id), "issued")).toBe("1");

    const view = await get(app, response.headers.location as string);
    expect(view.statusCode).toBe(200);
    expect(view.json()).toEqual({
      id,
      couponId: coupon.id,
      userId: "holder-1",
      status: "pending",
      createdAt: new Date((message as { createdAt: number }).createdAt).toISOString(),
    });
  });
});

describe("refusals", () => {
  it("409 already_issued carrying the existingId, for a user who holds the coupon", async () => {
    const coupon = await createCoupon(app, { quantity: 5 });
    const first = await issue(app, coupon.id, "twice");
    expect(first.statusCode).toBe(202);
    const again = await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "twice"));
    const body = expectProblem(again, 409, "already_issued", "userId");
    expect(body.existingId).toBe(first.json().id);
    expect(body.retryable).toBe(false);
  });

  it("410 sold_out once quantity coupons are issued; a holder still hears already_issued", async () => {
    const coupon = await createCoupon(app, { quantity: 2 });
    for (const user of ["sold-a", "sold-b"]) expect((await issue(app, coupon.id, user)).statusCode).toBe(202);
    expectCouponRefusal(
      await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "sold-c")),
      410,
      "sold_out",
    );
    expectProblem(
      await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "sold-a")),
      409,
      "already_issued",
    );
    expect(await app.redis.hget(app.queueKeys.couponState(coupon.id), "issued")).toBe("2");
  });

  it("403 not_open before the window opens", async () => {
    const coupon = await createCoupon(app, { startsAt: isoIn(3_600_000) });
    const body = expectCouponRefusal(
      await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "early")),
      403,
      "not_open",
    );
    expect(String(body.detail)).toContain(`opens at ${coupon.startsAt}`);
  });

  it("403 not_open after the window closed", async () => {
    const coupon = await createCoupon(app, { startsAt: isoIn(-7_200_000), endsAt: isoIn(-3_600_000) });
    const body = expectCouponRefusal(
      await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "late")),
      403,
      "not_open",
    );
    expect(String(body.detail)).toContain(`closed at ${coupon.endsAt}`);
  });

  it("issues inside the window", async () => {
    const coupon = await createCoupon(app, { startsAt: isoIn(-60_000), endsAt: isoIn(3_600_000) });
    expect((await issue(app, coupon.id, "on-time")).statusCode).toBe(202);
  });

  it("404 for a well-formed id no coupon has", async () => {
    const response = await refusedWithoutWrites("cpn_00000000000000000000000000", () =>
      issue(app, "cpn_00000000000000000000000000", "nobody"),
    );
    expectProblem(response, 404, "not_found", "couponId");
  });

  it("503 coupon_state_missing (retryable, with Retry-After) when Redis lost the coupon's state, and enqueues nothing", async () => {
    const coupon = await createCoupon(app);
    await app.redis.del(app.queueKeys.couponState(coupon.id));
    const missing = await decisions("state_missing");
    const response = await refusedWithoutWrites(coupon.id, () => issue(app, coupon.id, "after-loss"));
    const body = expectCouponRefusal(response, 503, "coupon_state_missing");
    expect(body.retryable).toBe(true);
    // An operator's repair, not a blink: the client is told to wait long enough for it.
    expect(response.headers["retry-after"]).toBe("30");
    expectDocumentedAnswer(document, "issueCoupon", response, ["Retry-After"]);
    expect(await decisions("state_missing")).toBe(missing + 1);
  });
});

describe("bad input is a 4xx problem naming the field, and nothing is enqueued", () => {
  let couponId: string;
  beforeAll(async () => {
    couponId = (await createCoupon(app)).id;
  });
  const url = () => `/v1/coupons/${couponId}/issues`;

  it.each([
    ["a missing userId", {}, "userId"],
    ["an empty userId", { userId: "" }, "userId"],
    ["a 65-character userId", { userId: "u".repeat(65) }, "userId"],
    ["a userId with a space", { userId: "a b" }, "userId"],
    ["a numeric userId", { userId: 7 }, "userId"],
    ["an unknown field", { userId: "ok", couponId: "x" }, "couponId"],
    ["a JSON array", [{ userId: "ok" }], "body"],
  ])("%s", async (_, body, field) => {
    expectProblem(
      await refusedWithoutWrites(couponId, () => post(app, url(), body)),
      400,
      "validation_error",
      field,
    );
  });

  it.each([
    ["a malformed coupon id", "/v1/coupons/cpn_nope/issues"],
    ["an operation id as coupon id", "/v1/coupons/pay_01M80JPZKW9CHTKTTMJT7FAZ06/issues"],
    ["a lowercase coupon id", "/v1/coupons/cpn_01m80jpzkw9chtkttmjt7faz06/issues"],
  ])("%s", async (_, path) => {
    const response = await refusedWithoutWrites(couponId, () => post(app, path, { userId: "ok" }));
    expectProblem(response, 400, "validation_error", "couponId");
  });

  it("malformed JSON, another content type, no body", async () => {
    const raw =
      (payload: string, type = "application/json") =>
      () =>
        documentedInject(app, {
          method: "POST",
          url: url(),
          headers: withCredentials(app, { "content-type": type }),
          payload,
        });
    expectProblem(await refusedWithoutWrites(couponId, raw('{"userId":')), 400, "malformed_json", "body");
    expectProblem(
      await refusedWithoutWrites(couponId, raw('{"userId":"a"}', "text/plain")),
      415,
      "unsupported_media_type",
    );
    expectProblem(
      await refusedWithoutWrites(couponId, () =>
        documentedInject(app, { method: "POST", url: url(), headers: withCredentials(app) }),
      ),
      400,
      "validation_error",
      "body",
    );
  });
});

describe("GET /v1/coupon-issues/:id", () => {
  it("answers 404 for another kind's id or an unknown one, 400 for a malformed one", async () => {
    const payment = await post(app, "/v1/payments", { userId: "reader", amount: 5 });
    expectProblem(await get(app, `/v1/coupon-issues/${payment.json().id}`), 404, "not_found", "id");
    expectProblem(await get(app, "/v1/coupon-issues/cis_0000000000ZZ00000000000000"), 404, "not_found", "id");
    expectProblem(await get(app, "/v1/coupon-issues/cis_nope"), 400, "invalid_operation_id", "id");
  });
});

describe("the intake's budget and metrics", () => {
  // On a Redis Cluster the coupon and the user are in two slots (issue-coupon-in-two-steps.ts): an accepted issue
  // sends admit + reserve (one round trip) and the commit (3), and after the answer its reservation is struck
  // off by a ZREM shared with the other issues answered in the same turn (reservation-strike-offs.ts); a
  // sold-out refusal without an Idempotency-Key, admit + reserve (2).
  const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
  it(`sends ${onCluster ? "3 Redis commands per accepted issue and at most one shared ZREM, 2 per refused one" : "at most one Redis command per issue decision (those of one turn share one)"} once the definition is cached`, async () => {
    const coupon = await createCoupon(app, { quantity: 10 });
    expect((await issue(app, coupon.id, "budget-warm")).statusCode).toBe(202); // loads the script if needed
    const commands = async () => metricValue(await scrape(), "floodgate_intake_redis_commands_total");
    // Each count once the strike-offs sent after the answers have gone: the warm-up's before, the nine's after.
    const struckOff = () => reservationsStruckOff(app, app.queueKeys.couponReservations(coupon.id));
    await struckOff();
    const start = await commands();
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => issue(app, coupon.id, `budget-${i}`)),
    );
    expect(answers.filter((a) => a.statusCode === 202)).toHaveLength(9);
    expect(answers.filter((a) => a.statusCode === 410)).toHaveLength(6);
    await struckOff();
    const sent = (await commands()) - start;
    if (onCluster) {
      expect(sent).toBeGreaterThanOrEqual(9 * 3 + 6 * 2 + 1);
      expect(sent).toBeLessThanOrEqual(9 * 4 + 6 * 2);
    } else {
      // Issues read in one turn share a script call (turn-batches.ts in @floodgate/redis-scripts, up to
      // MAX_REQUESTS_PER_CALL a call): never more than one each.
      expect(sent).toBeGreaterThanOrEqual(Math.ceil(15 / MAX_REQUESTS_PER_CALL));
      expect(sent).toBeLessThanOrEqual(15);
    }
  });

  it("loads a definition from Postgres once per process, however many first requests arrive together", async () => {
    const coupon = await createCoupon(app, { quantity: 50 });
    const other = await buildApp(env.config, { logger: false });
    try {
      await other.ready();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          post(other, `/v1/coupons/${coupon.id}/issues`, { userId: `cold-${i}` }),
        ),
      );
      expect(answers.map((a) => a.statusCode)).toEqual(Array(30).fill(202));
      const text = (await get(other, "/metrics")).body;
      expect(metricValue(text, "floodgate_coupon_definition_loads_total")).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("counts decisions by outcome and shows the coupons remaining", async () => {
    const coupon = await createCoupon(app, { quantity: 2 });
    const before = {
      accepted: await decisions("accepted"),
      already: await decisions("already_issued"),
      sold: await decisions("sold_out"),
      unknown: await decisions("unknown_coupon"),
    };
    await issue(app, coupon.id, "m-1");
    await issue(app, coupon.id, "m-1");
    await issue(app, coupon.id, "m-2");
    await issue(app, coupon.id, "m-3");
    await issue(app, coupon.id, "m-4");
    await issue(app, "cpn_00000000000000000000000000", "m-5");
    expect(await decisions("accepted")).toBe(before.accepted + 2);
    expect(await decisions("already_issued")).toBe(before.already + 1);
    expect(await decisions("sold_out")).toBe(before.sold + 2);
    expect(await decisions("unknown_coupon")).toBe(before.unknown + 1);
    const text = await scrape();
    expect(metricValue(text, "floodgate_coupon_remaining", { coupon: coupon.id })).toBe(0);

    const fresh = await createCoupon(app, { quantity: 9 });
    await issue(app, fresh.id, "m-6");
    expect(metricValue(await scrape(), "floodgate_coupon_remaining", { coupon: fresh.id })).toBe(8);
  });
});
