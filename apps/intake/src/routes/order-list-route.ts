// GET /v1/orders: a shop's orders (server key), or a shopper's own (customer token), newest first, a page at a
// time. A read route: it queries Postgres, one query per shard per page (the intake's zero-Postgres budget is for
// accepted writes). What the cursor promises is in docs/api.md ("Listing orders").
import {
  ORDER_LIST_DEFAULT_LIMIT,
  type OrderListQuery,
  orderListQuerySchema,
  orderListResponseSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { actingUser, adminNotAllowed } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { listOrders } from "../orders/list-orders.ts";
import { decodeOrderListCursor } from "../orders/order-list-cursor.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function orderListRoute(app: FastifyInstance) {
  app.get<{ Querystring: OrderListQuery }>(
    "/v1/orders",
    {
      preValidation: limitAsNumber,
      schema: {
        operationId: "listOrders",
        summary: "Orders, newest first, a page at a time (a customer token: its own)",
        tags: ["Orders"],
        description:
          "The orders on the shards (one still queued appears once a worker has written it), newest first. Follow `nextCursor` as `after` until it is null: the walk lists no order twice and skips none that was on the shards when its first page was read (docs/api.md, Listing orders).",
        querystring: orderListQuerySchema,
        documented: {
          answers: {
            400: "A query parameter is not valid (`errors[]` names it): `limit`, `status`, `userId`, an `after` this route did not give, or an unknown one.",
            403: "`forbidden_user`: a customer token named another `userId`; `forbidden_caller`: the admin key.",
          },
        },
        response: {
          200: orderListResponseSchema,
          400: problemResponseSchema,
          403: problemResponseSchema,
          ...problems,
        },
      },
    },
    async (request) => {
      const { caller } = request;
      const { status, after, limit = ORDER_LIST_DEFAULT_LIMIT } = request.query;
      if (caller.kind === "admin") throw adminNotAllowed();
      // A server key names a user or none (every order); a customer token lists its own, and naming another
      // user is refused (actingUser), not quietly answered with the token's.
      const userId =
        caller.kind === "customer" ? actingUser(caller, request.query.userId) : request.query.userId;
      const position = after === undefined ? undefined : decodeOrderListCursor(after);
      if (after !== undefined && position === undefined) {
        throw new ProblemError("validation_error", {
          field: "after",
          detail: "after must be the nextCursor of an earlier page, as it was given",
        });
      }
      return listOrders(app.shards, {
        ...(userId === undefined ? {} : { userId }),
        ...(status === undefined ? {} : { status }),
        ...(position === undefined ? {} : { after: position }),
        limit,
      });
    },
  );
}

/**
 * A query string carries text; `limit` is a number, and its schema (an integer, 1 to 100) judges the number. Only
 * plain decimal digits are read as one; anything else stays text and is refused as not an integer, naming it.
 */
async function limitAsNumber(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>;
  if (typeof query.limit === "string" && /^-?\d{1,15}$/.test(query.limit)) query.limit = Number(query.limit);
}
