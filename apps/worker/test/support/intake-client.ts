// Accepts operations through the real intake (buildApp + inject: the HTTP edge without a socket). Every request a
// worker test sends the intake goes through documentedInject, the intake tests' own: each answer is held against
// the served OpenAPI document (openapi-contract.ts), so an answer that drifts from it fails here too.
import { randomUUID } from "node:crypto";
import type { Config } from "@floodgate/config";
import { serverKeyFor } from "@floodgate/test-fixtures";
import { buildApp } from "../../../intake/src/app.ts";
import { documentedInject } from "../../../intake/test/support/intake-test-kit.ts";
import type { AcceptedOperation } from "./ledger-assertions.ts";

export { documentedInject };

export type IntakeApp = Awaited<ReturnType<typeof buildApp>>;

/** Headers as the shop's server sends them: its test environment's server key, which acts for any user. */
export const asShop = (app: IntakeApp, headers: Record<string, string> = {}): Record<string, string> => ({
  ...headers,
  authorization: `Bearer ${serverKeyFor(app.config)}`,
});

/** Reads (and writes, below) retry a 503 as a shop's client would (a read is safe to repeat): on a loaded machine a shard's pool can
 * be briefly unavailable, which the intake answers 503 with Retry-After, and that is not what a test checks. */
const READ_ATTEMPTS = 20;

/** GET `url` as the shop's server, retrying a 503 after its Retry-After (at most 1 s apart, 20 attempts). */
export async function readAsShop(app: IntakeApp, url: string) {
  const read = () => documentedInject(app, { method: "GET", url, headers: asShop(app) });
  let response = await read();
  for (let attempt = 1; response.statusCode === 503 && attempt < READ_ATTEMPTS; attempt++) {
    const retryAfterSeconds = Number(response.headers["retry-after"] ?? 1);
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfterSeconds, 1) * 1000));
    response = await read();
  }
  return response;
}

export async function startIntake(config: Config): Promise<IntakeApp> {
  const app = await buildApp(config, { logger: false });
  await app.ready();
  return app;
}

/** Writes are retried as a shop's client is told to: a 503 that says `retryable` (on a loaded machine the queue
 * can answer late, and the request may or may not be stored) is sent again with the same Idempotency-Key, which
 * answers with what happened to the first; that is not what a test checks. At most 1 s apart, 20 attempts. */
export async function writeAsShop(app: IntakeApp, url: string, payload: object, key: string = randomUUID()) {
  const send = (idempotencyKey: string) =>
    documentedInject(app, {
      method: "POST",
      url,
      headers: asShop(app, { "idempotency-key": idempotencyKey }),
      payload,
    });
  let response = await send(key);
  for (
    let attempt = 1;
    response.statusCode === 503 && response.json().retryable === true && attempt < READ_ATTEMPTS;
    attempt++
  ) {
    const retryAfterSeconds = Number(response.headers["retry-after"] ?? 1);
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfterSeconds, 1) * 1000));
    response = await send(key);
  }
  return response;
}

export async function deposit(app: IntakeApp, userId: string, amount: number): Promise<AcceptedOperation> {
  const response = await writeAsShop(app, `/v1/wallets/${userId}/deposits`, { amount });
  if (response.statusCode !== 202)
    throw new Error(`deposit refused: ${response.statusCode} ${response.body}`);
  return { id: response.json().id, kind: "deposit", userId, amount };
}

export async function pay(app: IntakeApp, userId: string, amount: number): Promise<AcceptedOperation> {
  const response = await writeAsShop(app, "/v1/payments", { userId, amount });
  if (response.statusCode !== 202)
    throw new Error(`payment refused: ${response.statusCode} ${response.body}`);
  return { id: response.json().id, kind: "payment", userId, amount };
}
