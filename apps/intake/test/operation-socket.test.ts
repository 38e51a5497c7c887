// WS /v1/operations/:id/ws with two intake instances on one Redis and a real worker process: a socket gets
// the view its GET route answers at once, each change the worker publishes, whichever instance holds it, and
// a close 1000 after the final one. The worker runs only when a test starts it, so "pending" can be seen.
import { newOperationId } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import { get, metricValue, post, waitUntil } from "./support/intake-test-kit.ts";
import { type JsonSocket, openJsonSocket, withAccessToken } from "./support/json-socket.ts";
import {
  type ContractDocument,
  expectDocumentedMessage,
  servedDocument,
} from "./support/openapi-contract.ts";
import { createProduct } from "./support/product-test-kit.ts";

interface OperationMessage {
  type: "status" | "error";
  code?: string;
  operation?: { id: string; status: string; [field: string]: unknown };
  problem?: { status: number; code: string; [field: string]: unknown };
}

/** Waits 20 s for a message: a status behind a worker's batch on a busy machine. */
interface OperationSocket extends Omit<JsonSocket<OperationMessage>, "next"> {
  next(what: string, match?: (message: OperationMessage) => boolean): Promise<OperationMessage>;
}

let env: TestEnvironment;
let apps: FastifyInstance[] = [];
let worker: WorkerProcess | undefined;
let document: ContractDocument;

beforeAll(async () => {
  env = await createTestEnvironment("operation-socket", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  apps = [await buildApp(env.config, { logger: false }), await buildApp(env.config, { logger: false })];
  await Promise.all(apps.map((app) => app.listen({ port: 0, host: "127.0.0.1" })));
  document = await servedDocument(apps[0]!);
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(apps.map((app) => app.close()));
  await env?.cleanup();
});

const startWorker = async () => {
  worker ??= await startWorkerProcess(env.config);
};
const stopWorker = async () => {
  await worker?.stop();
  worker = undefined;
};

async function openOperationSocket(app: FastifyInstance, id: string): Promise<OperationSocket> {
  const { port } = app.server.address() as { port: number };
  const socket = await openJsonSocket<OperationMessage>(
    withAccessToken(`ws://127.0.0.1:${port}/v1/operations/${encodeURIComponent(id)}/ws`, env.serverKey),
  );
  return { ...socket, next: (what, match = () => true) => socket.next(match, what, 20_000) };
}

const statusOf = (status: string) => (message: OperationMessage) => message.operation?.status === status;
const statuses = (socket: OperationSocket) => socket.messages.map((message) => message.operation?.status);
/** The body of the operation's GET route, which every status message must carry as it is. */
const getBody = async (app: FastifyInstance, url: string) => {
  const response = await get(app, url);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};
const accept = async (app: FastifyInstance, url: string, body: unknown) => {
  const response = await post(app, url, body);
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as { id: string; amount?: number };
};
const openSockets = async (app: FastifyInstance) =>
  metricValue((await get(app, "/metrics")).body, "floodgate_operation_websockets");

describe("WS /v1/operations/:id/ws", () => {
  it("sends the current status at once, the final one from the worker on either instance, then closes 1000", async () => {
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    await stopWorker();
    const deposit = await accept(a, "/v1/wallets/socket-payer/deposits", { amount: 5000 });
    const payment = await accept(a, "/v1/payments", { userId: "socket-payer", amount: 1200 });
    // Accepted on one instance, watched on the other: the worker's publish reaches both.
    const depositSocket = await openOperationSocket(a, deposit.id);
    const paymentSocket = await openOperationSocket(b, payment.id);

    const pending = await paymentSocket.next("the current status");
    expect(pending).toEqual({ type: "status", operation: await getBody(a, `/v1/payments/${payment.id}`) });
    expect(pending.operation).toMatchObject({ id: payment.id, status: "pending" });
    expect((await depositSocket.next("the current status")).operation).toMatchObject({ status: "pending" });
    expect(await openSockets(b)).toBe(1);

    await startWorker();
    const paid = await paymentSocket.next("the final status", statusOf("succeeded"));
    expect((await paymentSocket.closed).code).toBe(1000);
    expect(paid).toEqual({ type: "status", operation: await getBody(b, `/v1/payments/${payment.id}`) });
    expect(statuses(paymentSocket)).toEqual(["pending", "succeeded"]);
    const deposited = await depositSocket.next("the final status", statusOf("succeeded"));
    expect((await depositSocket.closed).code).toBe(1000);
    expect(deposited.operation).toEqual(await getBody(a, `/v1/deposits/${deposit.id}`));
    await waitUntil(
      () => openSockets(b),
      (open) => open === 0,
      "the gauge to count the closed socket",
    );
  });

  it("follows an order from pending to awaiting_payment to paid", async () => {
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    await stopWorker();
    const product = await createProduct(a, { price: 700, stock: 5 });
    await accept(a, "/v1/wallets/socket-buyer/deposits", { amount: 10_000 });
    const order = await accept(a, "/v1/orders", {
      userId: "socket-buyer",
      items: [{ productId: product.id, quantity: 2 }],
    });
    const socket = await openOperationSocket(b, order.id);
    const pending = await socket.next("the current status");
    expect(pending).toEqual({ type: "status", operation: await getBody(a, `/v1/orders/${order.id}`) });
    expect(pending.operation?.status).toBe("pending");

    await startWorker();
    // Not final for the server: the socket stays open while the order awaits its payment.
    const awaiting = await socket.next("awaiting_payment", statusOf("awaiting_payment"));
    expect(awaiting.operation).toEqual(await getBody(a, `/v1/orders/${order.id}`));
    const payment = await accept(a, "/v1/payments", {
      userId: "socket-buyer",
      amount: order.amount,
      orderId: order.id,
    });
    const paid = await socket.next("paid", statusOf("paid"));
    expect((await socket.closed).code).toBe(1000);
    expect(paid.operation).toEqual(await getBody(b, `/v1/orders/${order.id}`));
    expect(paid.operation).toMatchObject({ paymentId: payment.id });
    expect(statuses(socket)).toEqual(["pending", "awaiting_payment", "paid"]);
  });

  it("reports a cancel, and an order end request's id reports the order it ends", async () => {
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    await startWorker();
    const product = await createProduct(a, { price: 300, stock: 5 });
    const order = await accept(a, "/v1/orders", {
      userId: "socket-canceller",
      items: [{ productId: product.id, quantity: 1 }],
    });
    await waitUntil(
      async () => (await getBody(a, `/v1/orders/${order.id}`)).status,
      (status) => status === "awaiting_payment",
      "the order to await payment",
    );
    const socket = await openOperationSocket(a, order.id);
    expect((await socket.next("the current status")).operation?.status).toBe("awaiting_payment");
    expect((await post(b, `/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(202);
    const cancelled = await socket.next("cancelled", statusOf("cancelled"));
    expect((await socket.closed).code).toBe(1000);
    expect(cancelled.operation).toEqual(await getBody(a, `/v1/orders/${order.id}`));

    const partition = a.queueKeys.partitionForOperation(order.id)!;
    const endId = await a.redis.hget(a.queueKeys.orderState(partition, order.id), "endId");
    expect(endId).toMatch(/^ocx_/);
    const endSocket = await openOperationSocket(b, endId!);
    // Already final: the view at once, then the close.
    expect(await endSocket.next("the order's view")).toEqual({
      type: "status",
      operation: cancelled.operation,
    });
    expect((await endSocket.closed).code).toBe(1000);
  });

  it.each([
    ["not an id", "nope"],
    ["a lowercase id", "pay_01k80jpzkw9chtkttmjt7faz06"],
    ["an unknown kind", "wdr_01M80JPZKW9CHTKTTMJT7FAZ06"],
  ])("sends the 400 problem and closes 4400 for %s", async (_, id) => {
    const socket = await openOperationSocket(apps[0]!, id);
    const error = await socket.next("the error");
    // The documented refusal: {type: "error", code, problem}.
    expect(error).toEqual({
      type: "error",
      code: "invalid_operation_id",
      problem: expect.objectContaining({
        status: 400,
        code: "invalid_operation_id",
        type: "/problems/invalid-operation-id",
        title: expect.any(String),
        detail: expect.any(String),
        errors: [expect.objectContaining({ field: "id" })],
      }),
    });
    expectDocumentedMessage(document, "watchOperation", error);
    expect((await socket.closed).code).toBe(4400);
  });

  it.each([
    ["payment", "/v1/payments"],
    ["deposit", "/v1/deposits"],
    ["coupon_issue", "/v1/coupon-issues"],
    ["order", "/v1/orders"],
    ["order_cancel", null],
  ] as const)("sends the 404 problem and closes 4404 for a %s id nobody issued", async (kind, route) => {
    const id = newOperationId(kind, bucketForUser("nobody"));
    const socket = await openOperationSocket(apps[1]!, id);
    const error = await socket.next("the error");
    expect(error.type).toBe("error");
    expect(error.code).toBe("not_found");
    expect(error.problem).toMatchObject({ status: 404, code: "not_found", type: "/problems/not-found" });
    expectDocumentedMessage(document, "watchOperation", error);
    expect((await socket.closed).code).toBe(4404);
    if (route !== null) {
      // The problem the GET route answers for the same id (but for the URL it names, and its own request id).
      const answered = await get(apps[1]!, `${route}/${id}`);
      expect(answered.statusCode).toBe(404);
      expect(error.problem?.requestId).toEqual(expect.any(String));
      expect({ ...error.problem, instance: "", requestId: "" }).toEqual({
        ...answered.json(),
        instance: "",
        requestId: "",
      });
    }
  });
});
