// Webhook endpoints through the real intake, and the expected events of operations (their ids are derived).
import { WEBHOOK_EVENT_TYPES, webhookEventId } from "@floodgate/domain";
import { asShop, documentedInject, type IntakeApp } from "./intake-client.ts";

export async function createEndpoint(
  app: IntakeApp,
  url: string,
  events: readonly string[] = WEBHOOK_EVENT_TYPES,
): Promise<{ id: string; secret: string }> {
  const response = await documentedInject(app, {
    method: "POST",
    url: "/v1/webhook-endpoints",
    headers: asShop(app),
    payload: { url, events },
  });
  if (response.statusCode !== 201)
    throw new Error(`endpoint refused: ${response.statusCode} ${response.body}`);
  return response.json();
}

export async function endpointDeliveries(app: IntakeApp, endpointId: string) {
  const response = await documentedInject(app, {
    method: "GET",
    url: `/v1/webhook-endpoints/${endpointId}/deliveries`,
    headers: asShop(app),
  });
  if (response.statusCode !== 200) throw new Error(`deliveries: ${response.statusCode} ${response.body}`);
  return response.json().data as {
    id: string;
    eventId: string;
    eventType: string;
    attempts: number;
    lastStatusCode: number | null;
    deliveredAt: string | null;
    nextAttemptAt: string | null;
  }[];
}

export interface ExpectedEvent {
  id: string;
  type: string;
  operationId: string;
}

export const expectedEvent = (operationId: string, type: string): ExpectedEvent => ({
  id: webhookEventId(operationId, type),
  type,
  operationId,
});
