// The demo store (apps/web/public) at /demo/, on the API's own origin so the page needs no CORS, and the
// checkout SDK's browser bundle beside it at /demo/checkout-sdk.js: a static file the SDK's build wrote (its
// package's "./browser" export), read like the page's own files, so the intake runs no bundler.
// With DEMO_LOGIN=on (loopback only, config refuses it elsewhere) it also signs shoppers in and funds their
// wallets, the two steps a real shop's server does: /demo/login mints a customer token for the id the visitor
// picks, and /demo/deposits deposits into the signed-in shopper's own wallet server-side, so the page never
// holds a server key. /demo/refunds refunds the signed-in shopper's own paid order in full and restocks it, as
// a shop's server would on a return (the page's admin strip has a button for it): the shopper's token names
// the user, the order must be theirs and paid, and the refund itself is the API's (POST /v1/refunds' path).
// Off the hot path: these routes share nothing with the checkout routes but the server.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import {
  acceptedResponseSchema,
  ORDER_ID_PATTERN,
  problemResponseSchema,
  refundAcceptedResponseSchema,
  USER_ID_PATTERN,
} from "@floodgate/domain";
import type { FastifyInstance, FastifyReply } from "fastify";
import { CREDENTIAL_FIELD } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { acceptOperation } from "../operations/accept-operation.ts";
import { readOrder } from "../orders/read-order.ts";
import { acceptRefund } from "../refunds/accept-refund.ts";
import { DEMO_DROP_PATH, demoRoomGate } from "./demo-room-gate.ts";

const PUBLIC_DIR = new URL("../../../web/public/", import.meta.url);

// One flat folder, names the page uses: anything else (a "..", a slash, a dotfile, an encoded trick once
// decoded) matches no file and answers 404 before the file system is asked.
const FILE_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg|png|ico)$/;
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
};

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

const demoLoginBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["userId"],
  properties: { userId: { type: "string", pattern: USER_ID_PATTERN } },
} as const;

const demoSessionResponseSchema = {
  type: "object",
  required: ["token", "userId", "expiresAt"],
  properties: { token: { type: "string" }, userId: { type: "string" }, expiresAt: { type: "string" } },
} as const;

// What a shop's server would deposit after its payment provider confirmed a top-up: here, whatever the demo
// shopper asks for, up to one large demo top-up.
const demoDepositBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["amount"],
  properties: { amount: { type: "integer", minimum: 1, maximum: 100_000_000 } },
} as const;

const demoRefundBodySchema = {
  type: "object",
  required: ["orderId"],
  additionalProperties: false,
  properties: { orderId: { type: "string", pattern: ORDER_ID_PATTERN } },
} as const;

const notFound = (path: string) => new ProblemError("not_found", { detail: `the demo has no ${path}` });

const require = createRequire(import.meta.url);

// Resolved on request, not at start: an intake whose SDK is not built still serves the API, and this one file
// answers 404 saying how to build it.
async function readSdkBundle(): Promise<Buffer> {
  try {
    return await readFile(require.resolve("@floodgate/checkout-sdk/browser"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "MODULE_NOT_FOUND") throw error;
    throw new ProblemError("not_found", {
      detail: "the checkout SDK is not built: run pnpm exec turbo run build (./floodgate start does)",
    });
  }
}

export async function demoPlugin(app: FastifyInstance) {
  if (app.config.demoLogin === true) demoShopperRoutes(app);

  const send = (reply: FastifyReply, extension: string, body: string | Buffer) =>
    reply
      .header("content-type", CONTENT_TYPES[extension]!)
      .header("cache-control", "no-cache")
      .header("x-content-type-options", "nosniff")
      .send(body);

  // Relative links in the page (./store.css) resolve under /demo/ only with the slash.
  app.get("/demo", { config: { auth: "public" }, schema: { response: problems } }, (request, reply) => {
    const query = request.url.indexOf("?");
    return reply.redirect(`/demo/${query === -1 ? "" : request.url.slice(query)}`, 301);
  });

  // The store page behind its room (demo-room-gate.ts): the same page as /demo/, gated while its room queues.
  app.addHook("onRequest", demoRoomGate(app));
  app.get(
    DEMO_DROP_PATH,
    { config: { auth: "public" }, schema: { response: problems } },
    async (_request, reply) => send(reply, "html", await readFile(new URL("index.html", PUBLIC_DIR))),
  );

  app.get(
    "/demo/checkout-sdk.js",
    { config: { auth: "public" }, schema: { response: problems } },
    async (_request, reply) => send(reply, "js", await readSdkBundle()),
  );

  app.get<{ Params: { "*": string } }>(
    "/demo/*",
    { config: { auth: "public" }, schema: { response: problems } },
    async (request, reply) => {
      const name = request.params["*"] || "index.html";
      const extension = FILE_NAME.exec(name)?.[1];
      if (extension === undefined) throw notFound(name);
      const file = new URL(name, PUBLIC_DIR);
      const body = await readFile(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw notFound(name);
        throw error;
      });
      return send(reply, extension, body);
    },
  );
}

function demoShopperRoutes(app: FastifyInstance) {
  app.post<{ Body: { userId: string } }>(
    "/demo/login",
    {
      // The visitor has no credential yet: this route is what gives one (and exists only with DEMO_LOGIN).
      config: { auth: "public" },
      schema: { body: demoLoginBodySchema, response: { 201: demoSessionResponseSchema, ...problems } },
    },
    async (request, reply) => {
      const { userId } = request.body;
      const { token, expiresAt } = await app.auth.customerTokens.mint(
        userId,
        app.config.customerTokenTtlSeconds,
      );
      return reply.code(201).send({ token, userId, expiresAt: expiresAt.toISOString() });
    },
  );

  app.post<{ Body: { amount: number } }>(
    "/demo/deposits",
    { schema: { body: demoDepositBodySchema, response: { 202: acceptedResponseSchema, ...problems } } },
    (request, reply) => {
      // The auth hook answered 401 already without a valid bearer. Only a shopper's own token may fund: the
      // user is the one it was minted for, never one the body names.
      const caller = request.caller;
      if (caller.kind !== "customer") {
        throw new ProblemError("forbidden_caller", {
          field: CREDENTIAL_FIELD,
          detail: "the demo's deposit takes a shopper's customer token (sign in with POST /demo/login)",
        });
      }
      acceptOperation(request, reply, {
        kind: "deposit",
        userId: caller.userId,
        amount: request.body.amount,
      });
    },
  );

  app.post<{ Body: { orderId: string } }>(
    "/demo/refunds",
    { schema: { body: demoRefundBodySchema, response: { 202: refundAcceptedResponseSchema, ...problems } } },
    async (request, reply) => {
      const caller = request.caller;
      if (caller.kind !== "customer") {
        throw new ProblemError("forbidden_caller", {
          field: CREDENTIAL_FIELD,
          detail: "the demo's refund takes a shopper's customer token (sign in with POST /demo/login)",
        });
      }
      const { orderId } = request.body;
      // A shopper refunds only their own order (another's answers as an unknown one), and only a paid one.
      const order = await readOrder(app, orderId);
      if (order.userId !== caller.userId) {
        throw new ProblemError("not_found", { field: "orderId", detail: `no order ${orderId}` });
      }
      if (order.status !== "paid" || order.paymentId === undefined) {
        throw new ProblemError("payment_not_succeeded", {
          field: "orderId",
          detail: `order ${orderId} is ${order.status}: only a paid order is refunded`,
        });
      }
      // One refund per order, whatever is clicked twice: the key names the order.
      return acceptRefund(
        request,
        reply,
        { paymentId: order.paymentId, restock: true, reason: "demo store return" },
        `demo-refund-${orderId}`,
      );
    },
  );
}
