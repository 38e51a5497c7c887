// The shop's webhook endpoints (server key only): where Floodgate POSTs signed events about its operations.
// A signing secret is answered once, when it is made (creation, rotation). Configuration routes: they query the
// global database.
import type {
  WebhookDeliveryIdParams,
  WebhookEndpointCreateRequest,
  WebhookEndpointIdParams,
  WebhookEndpointUpdateRequest,
} from "@floodgate/domain";
import {
  problemResponseSchema,
  webhookDeliveryIdParamsSchema,
  webhookDeliveryListResponseSchema,
  webhookDeliveryResponseSchema,
  webhookEndpointCreatedResponseSchema,
  webhookEndpointCreateRequestSchema,
  webhookEndpointIdParamsSchema,
  webhookEndpointListResponseSchema,
  webhookEndpointResponseSchema,
  webhookEndpointUpdateRequestSchema,
  webhookSecretRotatedResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { requireServer } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { checkEndpointUrl } from "../webhooks/endpoint-url-check.ts";
import {
  deleteEndpoint,
  deliveryView,
  endpointView,
  findEndpoint,
  insertEndpoint,
  insertPing,
  listDeliveries,
  listEndpoints,
  requestRedelivery,
  rotateSecret,
  updateEndpoint,
} from "../webhooks/webhook-endpoint-rows.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };
const tags = ["Webhooks"];

export async function webhookEndpointsRoute(app: FastifyInstance) {
  const serverOnly = async (request: FastifyRequest) => requireServer(request.caller, "managing webhooks");
  const allowPrivate = app.config.webhooks.allowPrivate;
  const missing = (id: string) =>
    new ProblemError("not_found", { field: "id", detail: `no webhook endpoint ${id}` });

  app.post<{ Body: WebhookEndpointCreateRequest }>(
    "/v1/webhook-endpoints",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "createWebhookEndpoint",
        summary: "Add a webhook endpoint (its signing secret is shown this once)",
        tags,
        body: webhookEndpointCreateRequestSchema,
        response: { 201: webhookEndpointCreatedResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      await checkEndpointUrl(request.body.url, allowPrivate);
      const row = await insertEndpoint(app.globalDb, request.body.url, request.body.events);
      request.log.info({ endpointId: row.id, events: row.events }, "webhook endpoint created");
      return reply.code(201).send({ ...endpointView(row), secret: row.secret });
    },
  );

  app.get(
    "/v1/webhook-endpoints",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "listWebhookEndpoints",
        summary: "Every webhook endpoint (never its secret)",
        tags,
        response: { 200: webhookEndpointListResponseSchema, ...problems },
      },
    },
    async () => ({ data: (await listEndpoints(app.globalDb)).map(endpointView) }),
  );

  app.get<{ Params: WebhookEndpointIdParams }>(
    "/v1/webhook-endpoints/:id",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "getWebhookEndpoint",
        summary: "One webhook endpoint",
        tags,
        params: webhookEndpointIdParamsSchema,
        response: { 200: webhookEndpointResponseSchema, ...problems },
      },
    },
    async (request) => {
      const row = await findEndpoint(app.globalDb, request.params.id);
      if (row === undefined) throw missing(request.params.id);
      return endpointView(row);
    },
  );

  app.patch<{ Params: WebhookEndpointIdParams; Body: WebhookEndpointUpdateRequest }>(
    "/v1/webhook-endpoints/:id",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "updateWebhookEndpoint",
        summary:
          "Change an endpoint's url, events, enabled or signatureScheme (workers see it within a second)",
        tags,
        params: webhookEndpointIdParamsSchema,
        body: webhookEndpointUpdateRequestSchema,
        response: { 200: webhookEndpointResponseSchema, ...problems },
      },
    },
    async (request) => {
      if (request.body.url !== undefined) await checkEndpointUrl(request.body.url, allowPrivate);
      const row = await updateEndpoint(app.globalDb, request.params.id, request.body);
      if (row === undefined) throw missing(request.params.id);
      return endpointView(row);
    },
  );

  app.delete<{ Params: WebhookEndpointIdParams }>(
    "/v1/webhook-endpoints/:id",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "deleteWebhookEndpoint",
        summary: "Delete an endpoint and its delivery history",
        tags,
        params: webhookEndpointIdParamsSchema,
        response: { 200: webhookEndpointResponseSchema, ...problems },
      },
    },
    async (request) => {
      const row = await deleteEndpoint(app.globalDb, request.params.id);
      if (row === undefined) throw missing(request.params.id);
      request.log.info({ endpointId: row.id }, "webhook endpoint deleted");
      return endpointView(row);
    },
  );

  app.post<{ Params: WebhookEndpointIdParams }>(
    "/v1/webhook-endpoints/:id/rotate-secret",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "rotateWebhookSecret",
        summary:
          "A new signing secret, shown this once; the previous one signs beside it for 24 h (two signatures)",
        tags,
        params: webhookEndpointIdParamsSchema,
        documented: {
          answers: {
            200: "The new secret. Until previousSecretExpiresAt each delivery carries a signature made with each secret, so a receiver holding either verifies; after it, only the new one signs.",
          },
        },
        response: { 200: webhookSecretRotatedResponseSchema, ...problems },
      },
    },
    async (request) => {
      const row = await rotateSecret(app.globalDb, request.params.id);
      if (row === undefined) throw missing(request.params.id);
      request.log.info({ endpointId: row.id }, "webhook endpoint secret rotated");
      return { ...endpointView(row), secret: row.secret };
    },
  );

  app.post<{ Params: WebhookEndpointIdParams }>(
    "/v1/webhook-endpoints/:id/test",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "testWebhookEndpoint",
        summary: "Send the endpoint a ping event (a delivery like any other, whatever it subscribes to)",
        tags,
        params: webhookEndpointIdParamsSchema,
        documented: {
          location: {
            template: "/v1/webhook-endpoints/{id}/deliveries",
            description:
              "The endpoint's deliveries, where this ping's attempts and outcome are read (no route reads one delivery)",
          },
          answers: {
            202: "The ping's delivery: a worker sends it within a second, signed with the endpoint's scheme and retried like any other (a disabled endpoint's waits until it is enabled and redelivered).",
          },
        },
        response: { 202: webhookDeliveryResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const row = (await findEndpoint(app.globalDb, id)) && (await insertPing(app.globalDb, id));
      if (!row) throw missing(id);
      return reply
        .code(202)
        .header("Location", `/v1/webhook-endpoints/${id}/deliveries`)
        .send(deliveryView(row));
    },
  );

  app.get<{ Params: WebhookEndpointIdParams }>(
    "/v1/webhook-endpoints/:id/deliveries",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "listWebhookDeliveries",
        summary: "An endpoint's latest 100 deliveries: attempts, last status code or error, next try",
        tags,
        params: webhookEndpointIdParamsSchema,
        response: { 200: webhookDeliveryListResponseSchema, ...problems },
      },
    },
    async (request) => {
      if ((await findEndpoint(app.globalDb, request.params.id)) === undefined)
        throw missing(request.params.id);
      return { data: (await listDeliveries(app.globalDb, request.params.id)).map(deliveryView) };
    },
  );

  app.post<{ Params: WebhookDeliveryIdParams }>(
    "/v1/webhook-deliveries/:id/redeliver",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "redeliverWebhook",
        summary: "Send a delivery again (a worker picks it up within a second), delivered or not",
        tags,
        // No route reads one delivery: its endpoint's deliveries list it, with its attempts and outcome.
        documented: {
          location: {
            template: "/v1/webhook-endpoints/{endpointId}/deliveries",
            description:
              "The delivery's endpoint's deliveries, where this delivery's next attempts and outcome are read (no route reads one delivery)",
          },
        },
        params: webhookDeliveryIdParamsSchema,
        response: { 202: webhookDeliveryResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const row = await requestRedelivery(app.globalDb, request.params.id);
      if (row === undefined) {
        throw new ProblemError("not_found", {
          field: "id",
          detail: `no webhook delivery ${request.params.id}`,
        });
      }
      const view = deliveryView(row);
      return reply
        .code(202)
        .header("Location", `/v1/webhook-endpoints/${view.endpointId}/deliveries`)
        .send(view);
    },
  );
}
