// The naive synchronous design Floodgate replaces (seed 000's first version): the request waits for one
// Postgres transaction that debits the wallet and records the payment. Same route and body as Floodgate's
// POST /v1/payments; it answers 201 with the final status instead of 202 pending.
import { randomUUID } from "node:crypto";
import type { createPool } from "@floodgate/db";
import { paymentRequestSchema } from "@floodgate/domain";
import Fastify, { type FastifyInstance } from "fastify";

type Pool = ReturnType<typeof createPool>;

interface PaymentBody {
  userId: string;
  amount: number;
  currency?: string;
}

/**
 * The baseline has no identity: the paying user comes from the body, so it stays required here. Floodgate's
 * schema lets a shopper leave it out (the token names the user); the baseline answers a body without it 400, as
 * before.
 */
const baselinePaymentSchema = {
  ...paymentRequestSchema,
  required: [...new Set([...(paymentRequestSchema.required ?? []), "userId"])],
};

const idempotencyHeaderSchema = {
  type: "object",
  required: ["idempotency-key"],
  properties: { "idempotency-key": { type: "string", minLength: 1, maxLength: 255 } },
} as const;

const paymentResultSchema = {
  type: "object",
  required: ["id", "status"],
  properties: { id: { type: "string" }, status: { type: "string" }, failureReason: { type: "string" } },
} as const;

export function buildBaselineApp(pool: Pool, currency: string): FastifyInstance {
  const app = Fastify({ logger: false });
  app.post<{ Body: PaymentBody; Headers: { "idempotency-key": string } }>(
    "/v1/payments",
    {
      schema: {
        body: baselinePaymentSchema,
        headers: idempotencyHeaderSchema,
        response: { 200: paymentResultSchema, 201: paymentResultSchema },
      },
    },
    async (request, reply) => {
      const key = request.headers["idempotency-key"];
      const createdAt = new Date();
      const id = randomUUID();
      const client = await pool.connect();
      try {
        // Four round trips and a row lock on the wallet for the whole transaction: the cost the async
        // design moves off the request path.
        await client.query("begin");
        const debit = await client.query(
          "update wallets set balance = balance - $2 where user_id = $1 and balance >= $2",
          [request.body.userId, request.body.amount],
        );
        const failureReason = debit.rowCount === 1 ? null : "insufficient_funds";
        const inserted = await client.query(
          `insert into payments (id, idempotency_key, user_id, amount, currency, status, failure_reason, created_at, completed_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, clock_timestamp()) on conflict (idempotency_key) do nothing`,
          [
            id,
            key,
            request.body.userId,
            request.body.amount,
            request.body.currency ?? currency,
            failureReason === null ? "succeeded" : "failed",
            failureReason,
            createdAt,
          ],
        );
        if (inserted.rowCount === 0) {
          // A retry: undo this attempt's debit and answer with the payment the key already made.
          await client.query("rollback");
          const existing = await client.query<{ id: string; status: string }>(
            "select id, status from payments where idempotency_key = $1",
            [key],
          );
          return reply.code(200).send(existing.rows[0]);
        }
        await client.query("commit");
        return reply
          .code(201)
          .send(
            failureReason === null ? { id, status: "succeeded" } : { id, status: "failed", failureReason },
          );
      } catch (error) {
        await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  );
  app.get("/readyz", async () => {
    await pool.query("select 1");
    return { status: "ready" };
  });
  return app;
}
