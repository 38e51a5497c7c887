// Provider payments through the real intake (inject), as the shop's server reports its provider's charges.
import { asShop, documentedInject, type IntakeApp, writeAsShop } from "./intake-client.ts";

let keys = 0;
/** A fresh Idempotency-Key for a provider payment of this test process. */
const freshKey = () => `provider-${process.pid}-${++keys}`;

export interface ProviderPaymentBody {
  provider: string;
  reference: string;
  amount: number;
}

export const postProviderPayment = (
  app: IntakeApp,
  orderId: string,
  body: ProviderPaymentBody,
  idempotencyKey: string | null = freshKey(),
) =>
  documentedInject(app, {
    method: "POST",
    url: `/v1/orders/${orderId}/provider-payments`,
    headers: asShop(app, idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey }),
    payload: body,
  });

/** POST it with a fresh Idempotency-Key (or the given one); returns the provider payment's id. */
export async function providerPayment(
  app: IntakeApp,
  orderId: string,
  body: ProviderPaymentBody,
  idempotencyKey?: string,
): Promise<string> {
  // Retried as the shop's server would, under the same key, while the intake answers a retryable 503.
  const response = await writeAsShop(
    app,
    `/v1/orders/${orderId}/provider-payments`,
    body,
    idempotencyKey ?? freshKey(),
  );
  if (response.statusCode !== 202) {
    throw new Error(`provider payment refused: ${response.statusCode} ${response.body}`);
  }
  return response.json().id as string;
}
