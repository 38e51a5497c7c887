// Signature schemes end to end, with a real worker process, the real intake, Redis and Postgres: a new endpoint's
// deliveries verified by the third-party `standardwebhooks` package as a shop would; an endpoint from before
// (as the migration leaves it: floodgate-signature, a base64url secret) still verified by the old
// Floodgate-Signature check until the shop PATCHes its scheme; a rotated secret signing beside the new one for
// 24 h (the rotation's time set back in the database, not waited for), then no more; and the test ping.
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { pingEventSchema } from "@floodgate/domain";
import { verifyWebhook, type WebhookEvent } from "@floodgate/node";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { Webhook } from "standardwebhooks";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asShop, deposit, documentedInject, type IntakeApp, startIntake } from "./support/intake-client.ts";
import { waitFor } from "./support/wait-for.ts";
import { createEndpoint, endpointDeliveries, expectedEvent } from "./support/webhook-endpoints.ts";
import {
  type ReceivedDelivery,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./support/webhook-receiver.ts";

/** A shop's handler on the Standard Webhooks library: the headers as Node gives them. */
const standardLibrary = (body: string, headers: Record<string, unknown>, secret: string) =>
  new Webhook(secret).verify(body, headers as Record<string, string>) as WebhookEvent;

/** A shop's handler written before Standard Webhooks: Floodgate-Signature only, as the README said. */
const floodgateSignatureOnly = (body: string, headers: Record<string, unknown>, secret: string) =>
  verifyWebhook({ payload: body, header: headers["floodgate-signature"] as string | undefined, secret });

const verifies = (check: () => unknown) => {
  try {
    check();
    return true;
  } catch {
    return false;
  }
};

let env: TestEnvironment;
let app: IntakeApp;
let global: Kysely<GlobalDatabase>;
let worker: WorkerProcess;
let fresh: { receiver: WebhookReceiver; id: string; secret: string };
let existing: { receiver: WebhookReceiver; id: string; secret: string };

beforeAll(async () => {
  env = await createTestEnvironment("webhooks-signature-schemes", {
    env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "1000" },
  });
  app = await startIntake(env.config);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  const freshReceiver = await startWebhookReceiver(standardLibrary);
  const created = await createEndpoint(app, freshReceiver.url);
  fresh = { receiver: freshReceiver, id: created.id, secret: created.secret };
  freshReceiver.setSecret(created.secret);

  // An endpoint as the migration leaves one made before the column: its scheme, and a secret of that time.
  const existingReceiver = await startWebhookReceiver(floodgateSignatureOnly);
  const old = await createEndpoint(app, existingReceiver.url);
  const oldSecret = `whsec_${Buffer.alloc(24, 0xfb).toString("base64url")}`;
  await global
    .updateTable("webhook_endpoints")
    .set({ signature_scheme: "floodgate-signature", secret: oldSecret })
    .where("id", "=", old.id)
    .execute();
  existing = { receiver: existingReceiver, id: old.id, secret: oldSecret };
  existingReceiver.setSecret(oldSecret);
  // Started after the endpoints exist, so its first read of them sees both.
  worker = await startWorkerProcess(env.config);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await Promise.all([fresh?.receiver.close(), existing?.receiver.close()]);
  await global?.destroy();
  await env?.cleanup();
});

const request = (method: "GET" | "PATCH" | "POST", url: string, payload?: object) =>
  documentedInject(app, { method, url, headers: asShop(app), ...(payload ? { payload } : {}) });

/** Asks for a ping and waits for it at the receiver; its delivery as received. */
async function ping(endpoint: { receiver: WebhookReceiver; id: string }): Promise<ReceivedDelivery> {
  const asked = await request("POST", `/v1/webhook-endpoints/${endpoint.id}/test`);
  expect(asked.statusCode, asked.body).toBe(202);
  const { eventId } = asked.json();
  let arrived: ReceivedDelivery | undefined;
  await waitFor(
    () => {
      arrived = endpoint.receiver.received.find((delivery) => delivery.event.id === eventId);
      return arrived !== undefined;
    },
    `ping ${eventId}`,
    45_000,
    () => `refused: ${endpoint.receiver.forged.join("; ")}`,
  );
  return arrived!;
}

describe("a new endpoint", () => {
  it("is created standard-webhooks with a whsec_ secret in standard base64", () => {
    expect(fresh.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it("has its events signed as the standardwebhooks package verifies (webhook-id the event id)", async () => {
    const { id } = await deposit(app, "sw-new", 1_000);
    const want = expectedEvent(id, "deposit.succeeded");
    await waitFor(() => fresh.receiver.acceptedCount(want.id) === 1, "the deposit's event at the receiver");
    const delivery = fresh.receiver.received.find((d) => d.event.id === want.id)!;
    expect(delivery.event).toMatchObject({ type: "deposit.succeeded", data: { id } });
    expect(delivery.eventIdHeader).toBe(want.id);
    expect(delivery.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(delivery.headers).not.toHaveProperty("floodgate-signature");
    expect(fresh.receiver.forged).toEqual([]);
  });
});

describe("an endpoint from before Standard Webhooks", () => {
  it("keeps Floodgate-Signature, verified by a handler that reads only it", async () => {
    const { id } = await deposit(app, "sw-old", 1_000);
    const want = expectedEvent(id, "deposit.succeeded");
    await waitFor(
      () => existing.receiver.acceptedCount(want.id) === 1,
      "the deposit's event at the old receiver",
    );
    const delivery = existing.receiver.received.find((d) => d.event.id === want.id)!;
    expect(delivery.headers["floodgate-event-id"]).toBe(want.id);
    expect(delivery.headers).not.toHaveProperty("webhook-signature");
    expect(existing.receiver.forged).toEqual([]);
    const shown = await request("GET", `/v1/webhook-endpoints/${existing.id}`);
    expect(shown.json()).toMatchObject({ signatureScheme: "floodgate-signature" });
  });

  it("switches with PATCH: its next delivery is Standard Webhooks, verified with the same secret", async () => {
    const switched = await request("PATCH", `/v1/webhook-endpoints/${existing.id}`, {
      signatureScheme: "standard-webhooks",
    });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ signatureScheme: "standard-webhooks" });
    // The shop's handler moves to a scheme-agnostic check (@floodgate/node given all the headers).
    existing.receiver.setVerifier((body, headers, secret) =>
      verifyWebhook({ payload: body, headers, secret }),
    );
    const delivery = await ping(existing);
    expect(delivery.headers).not.toHaveProperty("floodgate-signature");
    // A Standard Webhooks library takes the same key with the base64url secret written in standard base64.
    const standardForm = `whsec_${existing.secret.slice(6).replaceAll("-", "+").replaceAll("_", "/")}`;
    expect(standardLibrary(delivery.body, delivery.headers, standardForm)).toEqual(delivery.event);
  });
});

describe("rotate-secret", () => {
  let rotated: string;

  it("answers a new secret; during the overlap a receiver holding either secret verifies", async () => {
    const answer = await request("POST", `/v1/webhook-endpoints/${fresh.id}/rotate-secret`);
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json();
    rotated = body.secret;
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated).not.toBe(fresh.secret);
    const overlapEnds = Date.parse(body.previousSecretExpiresAt);
    expect(overlapEnds - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(overlapEnds - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

    const delivery = await ping(fresh); // the receiver still holds the old secret
    expect(String(delivery.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(standardLibrary(delivery.body, delivery.headers, fresh.secret)).toEqual(delivery.event);
    expect(standardLibrary(delivery.body, delivery.headers, rotated)).toEqual(delivery.event);
  });

  it("after 24 h only the new secret signs, and the old one is forgotten", async () => {
    await sql`update webhook_endpoints set secret_rotated_at = now() - interval '24 hours 1 minute'
              where id = ${fresh.id}`.execute(global);
    fresh.receiver.setSecret(rotated);
    const delivery = await ping(fresh);
    expect(String(delivery.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifies(() => standardLibrary(delivery.body, delivery.headers, rotated))).toBe(true);
    expect(verifies(() => standardLibrary(delivery.body, delivery.headers, fresh.secret))).toBe(false);
    const shown = await request("GET", `/v1/webhook-endpoints/${fresh.id}`);
    expect(shown.json()).toMatchObject({ previousSecretExpiresAt: null });
    const stored = () =>
      global
        .selectFrom("webhook_endpoints")
        .select("previous_secret")
        .where("id", "=", fresh.id)
        .executeTakeFirst();
    await waitFor(async () => (await stored())?.previous_secret === null, "the old secret to be forgotten");
  });
});

describe("POST /v1/webhook-endpoints/:id/test", () => {
  it("sends a ping through the deliveries, listed with its outcome", async () => {
    const delivery = await ping(fresh);
    expect(delivery.event).toMatchObject({ type: "ping", data: { endpointId: fresh.id } });
    expect([...Value.Errors(pingEventSchema, delivery.event)]).toEqual([]);
    await waitFor(async () => {
      const listed = await endpointDeliveries(app, fresh.id);
      return listed.some((d) => d.eventId === delivery.event.id && d.deliveredAt !== null);
    }, "the ping's delivery recorded as delivered");
    expect(fresh.receiver.forged).toEqual([]);
  });
});
