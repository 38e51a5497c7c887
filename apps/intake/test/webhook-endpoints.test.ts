// The webhook endpoint routes: server key only, the secret shown once, problems naming `url` for a malformed
// URL (400) and a private address (422), the list/get/patch/delete cycle, and redelivery requests.
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { documentedInject, expectProblem, get, post } from "./support/intake-test-kit.ts";
import { type ContractDocument, expectDocumentedAnswer, servedDocument } from "./support/openapi-contract.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let open: FastifyInstance;
let global: Kysely<GlobalDatabase>;
let document: ContractDocument;

beforeAll(async () => {
  env = await createTestEnvironment("webhook-endpoints");
  app = await buildApp(env.config, { logger: false });
  // The same deployment with private targets allowed (as the delivery tests run).
  open = await buildApp(
    { ...env.config, webhooks: { ...env.config.webhooks, allowPrivate: true } },
    { logger: false },
  );
  await Promise.all([app.ready(), open.ready()]);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  document = await servedDocument(app);
});

afterAll(async () => {
  await Promise.all([app?.close(), open?.close()]);
  await global?.destroy();
  await env?.cleanup();
});

const patch = (target: FastifyInstance, url: string, body: unknown) =>
  documentedInject(target, {
    method: "PATCH",
    url,
    payload: body as object,
    headers: { authorization: `Bearer ${env.serverKey}` },
  });
const del = (target: FastifyInstance, url: string) =>
  documentedInject(target, { method: "DELETE", url, headers: { authorization: `Bearer ${env.serverKey}` } });

describe("POST /v1/webhook-endpoints", () => {
  it("creates an endpoint and shows its whsec_ secret once; lists and reads never show it", async () => {
    const created = await post(open, "/v1/webhook-endpoints", {
      url: "http://127.0.0.1:9/hooks",
      events: ["payment.succeeded", "order.paid"],
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^whe_[0-9a-f]{24}$/),
      url: "http://127.0.0.1:9/hooks",
      events: ["payment.succeeded", "order.paid"],
      enabled: true,
      signatureScheme: "standard-webhooks",
      previousSecretExpiresAt: null,
      // Standard base64, as Standard Webhooks libraries decode it: 24 bytes, no padding.
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    expectDocumentedAnswer(document, "createWebhookEndpoint", created, []);
    const stored = await global
      .selectFrom("webhook_endpoints")
      .select("secret")
      .where("id", "=", body.id)
      .executeTakeFirst();
    expect(stored?.secret).toBe(body.secret);

    const one = await get(open, `/v1/webhook-endpoints/${body.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).not.toHaveProperty("secret");
    const list = await get(open, "/v1/webhook-endpoints");
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(body.id);
    expect(list.body).not.toContain(body.secret);
  });

  it("refuses a private, loopback or link-local target with a 422 naming url, unless allowed", async () => {
    for (const url of [
      "http://127.0.0.1:8080/h",
      "http://10.1.2.3/h",
      "http://192.168.0.10/h",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/h",
      "http://[fd00::1]/h",
      "http://localhost:3000/h",
    ]) {
      const refused = await post(app, "/v1/webhook-endpoints", { url, events: ["payment.succeeded"] });
      expectProblem(refused, 422, "webhook_url_refused", "url");
    }
  });

  it("refuses a URL that is not http(s) with a 400 naming url, and an unknown event type", async () => {
    expectProblem(
      await post(app, "/v1/webhook-endpoints", { url: "ftp://example.com/h", events: ["payment.succeeded"] }),
      400,
      "validation_error",
      "url",
    );
    expectProblem(
      await post(app, "/v1/webhook-endpoints", { url: "not a url at all", events: ["payment.succeeded"] }),
      400,
      "validation_error",
      "url",
    );
    const badEvent = await post(app, "/v1/webhook-endpoints", {
      url: "https://example.com/h",
      events: ["payment.maybe"],
    });
    expect(badEvent.statusCode).toBe(400);
    expect(
      badEvent
        .json()
        .errors.map((e: { field: string }) => e.field)
        .join(),
    ).toContain("events");
  });

  it("takes only the shop's server key", async () => {
    const none = await post(
      app,
      "/v1/webhook-endpoints",
      { url: "https://example.com/h", events: ["payment.succeeded"] },
      { authorization: "" },
    );
    expect(none.statusCode).toBe(401);
    const session = await post(app, "/v1/customer-sessions", { userId: "shopper-1" });
    expect(session.statusCode, session.body).toBe(201);
    const asShopper = { authorization: `Bearer ${session.json().token}` };
    expectProblem(
      await get(app, "/v1/webhook-endpoints", asShopper),
      403,
      "forbidden_caller",
      "Authorization",
    );
    const created = await post(
      app,
      "/v1/webhook-endpoints",
      { url: "https://example.com/h", events: ["payment.succeeded"] },
      asShopper,
    );
    expectProblem(created, 403, "forbidden_caller", "Authorization");
  });
});

describe("PATCH, DELETE, deliveries and redeliver", () => {
  it("changes url, events and enabled; deletes; answers 404 naming id afterwards", async () => {
    const { id } = (
      await post(open, "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/a", events: ["coupon.issued"] })
    ).json();
    const changed = await patch(open, `/v1/webhook-endpoints/${id}`, {
      url: "http://127.0.0.1:9/b",
      events: ["order.expired", "order.cancelled"],
      enabled: false,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      url: "http://127.0.0.1:9/b",
      events: ["order.expired", "order.cancelled"],
      enabled: false,
    });
    expectProblem(
      await patch(app, `/v1/webhook-endpoints/${id}`, { url: "http://10.0.0.1/" }),
      422,
      "webhook_url_refused",
      "url",
    );
    expect((await patch(app, `/v1/webhook-endpoints/${id}`, {})).statusCode).toBe(400);
    const switched = await patch(open, `/v1/webhook-endpoints/${id}`, {
      signatureScheme: "floodgate-signature",
    });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ signatureScheme: "floodgate-signature" });
    expectDocumentedAnswer(document, "updateWebhookEndpoint", switched);
    const unknown = await patch(open, `/v1/webhook-endpoints/${id}`, { signatureScheme: "svix" });
    expectProblem(unknown, 400, "validation_error", "signatureScheme");
    expectDocumentedAnswer(document, "updateWebhookEndpoint", unknown);

    const deliveries = await get(open, `/v1/webhook-endpoints/${id}/deliveries`);
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json()).toEqual({ data: [] });

    expect((await del(open, `/v1/webhook-endpoints/${id}`)).statusCode).toBe(200);
    expectProblem(await get(open, `/v1/webhook-endpoints/${id}`), 404, "not_found", "id");
    expectProblem(await del(open, `/v1/webhook-endpoints/${id}`), 404, "not_found", "id");
  });

  it("records a redelivery request on the delivery row (the worker's relay sends it)", async () => {
    const { id } = (
      await post(open, "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/r", events: ["payment.failed"] })
    ).json();
    const deliveryId = `whd_${"a".repeat(32)}`;
    await global
      .insertInto("webhook_deliveries")
      .values({
        id: deliveryId,
        endpoint_id: id,
        event_id: "evt_x",
        event_type: "payment.failed",
        payload: "{}",
        gave_up_at: new Date(),
      })
      .execute();
    const asked = await post(open, `/v1/webhook-deliveries/${deliveryId}/redeliver`, undefined);
    expect(asked.statusCode, asked.body).toBe(202);
    expect(asked.json()).toMatchObject({ id: deliveryId, endpointId: id, gaveUpAt: null });
    // No route reads one delivery: Location is its endpoint's deliveries, which list it.
    expect(asked.headers.location).toBe(`/v1/webhook-endpoints/${id}/deliveries`);
    expectDocumentedAnswer(document, "redeliverWebhook", asked, ["Location"]);
    const listed = await get(open, asked.headers.location as string);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((delivery: { id: string }) => delivery.id)).toContain(deliveryId);
    const row = await global
      .selectFrom("webhook_deliveries")
      .select("redeliver_requested_at")
      .where("id", "=", deliveryId)
      .executeTakeFirst();
    expect(row?.redeliver_requested_at).toBeInstanceOf(Date);
    expectProblem(
      await post(open, `/v1/webhook-deliveries/whd_${"b".repeat(32)}/redeliver`, undefined),
      404,
      "not_found",
      "id",
    );
  });
});

describe("rotate-secret and test", () => {
  it("rotates: a new secret, shown this once and stored; the old one kept as previous for 24 h", async () => {
    const created = (
      await post(open, "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/k", events: ["order.paid"] })
    ).json();
    const rotated = await post(open, `/v1/webhook-endpoints/${created.id}/rotate-secret`, undefined);
    expect(rotated.statusCode, rotated.body).toBe(200);
    expectDocumentedAnswer(document, "rotateWebhookSecret", rotated);
    const body = rotated.json();
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(body.secret).not.toBe(created.secret);
    const row = await global
      .selectFrom("webhook_endpoints")
      .select(["secret", "previous_secret", "secret_rotated_at"])
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ secret: body.secret, previous_secret: created.secret });
    expect(Date.parse(body.previousSecretExpiresAt)).toBe(row.secret_rotated_at!.getTime() + 24 * 3_600_000);
    // Rotated again within the overlap: the first secret stops signing at once (two sign at most).
    const again = (await post(open, `/v1/webhook-endpoints/${created.id}/rotate-secret`, undefined)).json();
    const after = await global
      .selectFrom("webhook_endpoints")
      .select(["secret", "previous_secret"])
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ secret: again.secret, previous_secret: body.secret });
    // Never shown again.
    expect((await get(open, `/v1/webhook-endpoints/${created.id}`)).body).not.toContain(again.secret);
  });

  it("test records a ping delivery for the workers' relay to send, with Location to the endpoint's deliveries", async () => {
    const { id } = (
      await post(open, "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/p", events: ["coupon.issued"] })
    ).json();
    const asked = await post(open, `/v1/webhook-endpoints/${id}/test`, undefined);
    expect(asked.statusCode, asked.body).toBe(202);
    expectDocumentedAnswer(document, "testWebhookEndpoint", asked, ["Location"]);
    expect(asked.headers.location).toBe(`/v1/webhook-endpoints/${id}/deliveries`);
    expect(asked.json()).toMatchObject({ endpointId: id, eventType: "ping", attempts: 0, deliveredAt: null });
    const row = await global
      .selectFrom("webhook_deliveries")
      .select(["payload", "redeliver_requested_at"])
      .where("id", "=", asked.json().id)
      .executeTakeFirstOrThrow();
    expect(row.redeliver_requested_at).toBeInstanceOf(Date);
    expect(JSON.parse(row.payload)).toMatchObject({
      id: asked.json().eventId,
      type: "ping",
      data: { endpointId: id },
    });
  });

  it("answers 404 naming id for an unknown endpoint, 400 for a malformed id, 401 without a key; writes nothing", async () => {
    for (const action of ["rotate-secret", "test"]) {
      const operationId = action === "test" ? "testWebhookEndpoint" : "rotateWebhookSecret";
      const missing = await post(open, `/v1/webhook-endpoints/whe_${"0".repeat(24)}/${action}`, undefined);
      expectProblem(missing, 404, "not_found", "id");
      expectDocumentedAnswer(document, operationId, missing);
      const malformed = await post(open, `/v1/webhook-endpoints/nope/${action}`, undefined);
      expect(malformed.statusCode).toBe(400);
      expectDocumentedAnswer(document, operationId, malformed);
      const unauthenticated = await post(
        open,
        `/v1/webhook-endpoints/whe_${"0".repeat(24)}/${action}`,
        undefined,
        {
          authorization: "",
        },
      );
      expect(unauthenticated.statusCode).toBe(401);
      expectDocumentedAnswer(document, operationId, unauthenticated);
    }
    const none = await global
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("endpoint_id", "=", `whe_${"0".repeat(24)}`)
      .execute();
    expect(none).toEqual([]);
  });
});
