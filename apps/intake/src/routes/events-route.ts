// The events feed (server key only): every webhook event of the shop's operations, whether or not an endpoint
// subscribes, oldest first, kept EVENT_RETENTION_DAYS: a shop whose receiver was down, or that starts later,
// catches up from a cursor. A read route: one Postgres query per shard per page (events/event-feed-query.ts).
import {
  EVENT_FEED_MAX_LIMIT,
  type EventFeedQuery,
  eventFeedQuerySchema,
  eventFeedResponseSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { requireServer } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { decodeCursor, encodeCursor, startCursor } from "../events/event-cursor.ts";
import { readEventPage } from "../events/event-feed-query.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

function pageLimit(limit: string | undefined): number {
  if (limit === undefined) return EVENT_FEED_MAX_LIMIT;
  const value = Number(limit);
  if (value >= 1 && value <= EVENT_FEED_MAX_LIMIT) return value;
  const detail = `limit must be from 1 to ${EVENT_FEED_MAX_LIMIT}, got ${limit}`;
  throw new ProblemError("validation_error", {
    field: "limit",
    detail,
    errors: [{ field: "limit", pointer: "#/limit", detail }],
  });
}

export async function eventsRoute(app: FastifyInstance) {
  const serverOnly = async (request: FastifyRequest) =>
    requireServer(request.caller, "reading the events feed");

  app.get<{ Querystring: EventFeedQuery }>(
    "/v1/events",
    {
      preValidation: serverOnly,
      schema: {
        operationId: "listEvents",
        summary: "Every event the shop's webhook endpoints would get, oldest first, from a cursor",
        description:
          "Recorded with the operation that raised it, whether or not an endpoint subscribes, and kept " +
          "EVENT_RETENTION_DAYS (30 by default). Each item is the body a webhook delivery of it POSTs (the " +
          "`webhooks` section gives each type's). Page with `after=<nextCursor>`; a page shorter than " +
          "`limit` means nothing more for now: keep the cursor and ask again later. No event is skipped, " +
          "even one committed late on one shard.",
        tags: ["Events"],
        querystring: eventFeedQuerySchema,
        response: { 200: eventFeedResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { after, type, limit } = request.query;
      const count = pageLimit(limit);
      const shards = app.shards.databases;
      const cursor =
        after === undefined
          ? startCursor(type ?? null, shards.length)
          : decodeCursor(after, type ?? null, shards.length);
      const page = await readEventPage(shards, cursor, count);
      return { data: page.data, nextCursor: encodeCursor(page.next) };
    },
  );
}
