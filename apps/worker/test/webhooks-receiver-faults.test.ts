// Webhooks when the receiver misbehaves, with a real worker process and a real HTTP receiver: one that is down
// (503) for a minute gets every event once it is back, after retries on the backoff schedule (WEBHOOK_RETRY_BASE_MS=1000
// here: the doubling of the three-day schedule, in seconds); one that hangs holds only delivery slots, never
// the pipeline: operations keep becoming final while its requests are held open.
import {
  createTestEnvironment,
  freePort,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposit, type IntakeApp, pay, startIntake } from "./support/intake-client.ts";
import { operationView } from "./support/order-client.ts";
import { waitFor } from "./support/wait-for.ts";
import {
  createEndpoint,
  type ExpectedEvent,
  endpointDeliveries,
  expectedEvent,
} from "./support/webhook-endpoints.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

let env: TestEnvironment;
let app: IntakeApp;
let receiver: WebhookReceiver;
let endpointId: string;
let worker: WorkerProcess | undefined;
let metricsUrl: string;

/** A series' value in the worker's /metrics (0 when absent). */
async function metric(name: string, labels = ""): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

beforeAll(async () => {
  env = await createTestEnvironment("webhooks-faults", {
    env: {
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_BASE_MS: "1000",
      // Longer than the test holds a request: a held delivery is answered, not timed out and retried.
      WEBHOOK_TIMEOUT_MS: "60000",
      WEBHOOK_CONCURRENCY: "4",
    },
  });
  app = await startIntake(env.config);
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(app, receiver.url, ["deposit.succeeded", "payment.succeeded"]);
  endpointId = endpoint.id;
  receiver.setSecret(endpoint.secret);
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  worker = await startWorkerProcess(env.config, { WORKER_METRICS_PORT: String(port) });
});

afterAll(async () => {
  receiver?.release();
  await worker?.stop();
  await app?.close();
  await receiver?.close();
  await env?.cleanup();
});

const isFinal = async (path: string) => (await operationView(app, path))?.status === "succeeded";
const refusedCount = (eventId: string) =>
  receiver.received.filter((d) => d.event.id === eventId && d.status === 503).length;

describe("a receiver that is down for a minute", () => {
  const expected: ExpectedEvent[] = [];
  let whileDown: Awaited<ReturnType<typeof endpointDeliveries>> = [];

  beforeAll(async () => {
    receiver.mode = "down";
    for (let i = 0; i < 4; i++) {
      const { id } = await deposit(app, `down-${i}`, 1_000 + i);
      expected.push(expectedEvent(id, "deposit.succeeded"));
    }
    await waitFor(
      () => expected.every((e) => refusedCount(e.id) >= 1),
      "a first refused attempt per event",
      60_000,
    );
    // Down for a whole minute from there (a receiver's outage or a slow deploy), refused at least three times
    // per event meanwhile: the first attempt and two retries of the backoff.
    const downSince = Date.now();
    await waitFor(
      () => Date.now() - downSince >= 60_000 && expected.every((e) => refusedCount(e.id) >= 3),
      "a minute of refused attempts",
      150_000,
    );
    whileDown = (await endpointDeliveries(app, endpointId)).filter((d) =>
      expected.some((e) => e.id === d.eventId),
    );
    receiver.mode = "ok";
    await waitFor(
      () => expected.every((e) => receiver.acceptedCount(e.id) >= 1),
      "every event after the return",
      60_000,
    );
  }, 300_000);

  it("recorded the refused attempts with their status code and the next try", () => {
    expect(whileDown).toHaveLength(expected.length);
    for (const delivery of whileDown) {
      expect(delivery.attempts).toBeGreaterThanOrEqual(2);
      expect(delivery.deliveredAt).toBeNull();
      if (delivery.lastStatusCode !== null) expect(delivery.lastStatusCode).toBe(503);
    }
    expect(whileDown.some((d) => d.nextAttemptAt !== null)).toBe(true);
  });

  it("gets every event exactly once after it returns, and the deliveries say so", async () => {
    for (const event of expected) expect(receiver.acceptedCount(event.id)).toBe(1);
    await waitFor(async () => {
      const now = (await endpointDeliveries(app, endpointId)).filter((d) =>
        expected.some((e) => e.id === d.eventId),
      );
      return now.every((d) => d.deliveredAt !== null && d.lastStatusCode === 200 && d.nextAttemptAt === null);
    }, "every delivery recorded as delivered");
    expect(receiver.forged).toEqual([]);
  });

  it("counts the refused attempts and the deliveries in the worker's metrics", async () => {
    const refused = expected.reduce((n, e) => n + refusedCount(e.id), 0);
    expect(await metric("floodgate_webhook_deliveries_total", '{outcome="failed_attempt"}')).toBe(refused);
    expect(await metric("floodgate_webhook_deliveries_total", '{outcome="delivered"}')).toBe(expected.length);
    expect(await metric("floodgate_webhook_deliveries_total", '{outcome="gave_up"}')).toBe(0);
  });
});

describe("a receiver that hangs", () => {
  const first: ExpectedEvent[] = [];
  const later: ExpectedEvent[] = [];
  let holdingWhenFinal = 0;

  beforeAll(async () => {
    receiver.mode = "hold";
    for (let i = 0; i < 6; i++) {
      const { id } = await deposit(app, `slow-${i}`, 5_000);
      first.push(expectedEvent(id, "deposit.succeeded"));
    }
    // Every delivery slot of the worker (WEBHOOK_CONCURRENCY=4) is held by the receiver.
    await waitFor(() => receiver.holding >= 4, "the receiver to hold the worker's delivery slots");
    // More operations meanwhile: they become final while the held requests stay open.
    for (let i = 0; i < 6; i++) {
      const { id } = await pay(app, `slow-${i}`, 1_000);
      later.push(expectedEvent(id, "payment.succeeded"));
    }
    await waitFor(async () => {
      const finals = await Promise.all(later.map((e) => isFinal(`/v1/payments/${e.operationId}`)));
      return finals.every(Boolean);
    }, "the later payments to be final");
    holdingWhenFinal = receiver.holding;
    receiver.mode = "ok";
    receiver.release();
    await waitFor(
      () => [...first, ...later].every((e) => receiver.acceptedCount(e.id) >= 1),
      "every event once the receiver answers",
      60_000,
    );
  });

  it("kept applying operations while every delivery slot hung", () => {
    expect(holdingWhenFinal).toBeGreaterThanOrEqual(4);
  });

  it("delivers every event exactly once after the receiver answers", () => {
    for (const event of [...first, ...later]) expect(receiver.acceptedCount(event.id)).toBe(1);
    expect(receiver.forged).toEqual([]);
  });
});
