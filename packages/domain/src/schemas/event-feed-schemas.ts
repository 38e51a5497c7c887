// Schemas of the events feed (GET /v1/events): the query a shop's server pages with, and the page. An item
// is the body a webhook delivery of the event POSTs (webhook-event-schemas.ts gives each type's `data`).
import Type, { type Static } from "typebox";
import { WEBHOOK_EVENT_TYPES } from "../webhook-events.ts";
import { stringEnum } from "./operation-schemas.ts";

export const EVENT_FEED_MAX_LIMIT = 100;

// Query values arrive as strings and are not coerced (the intake's ajv): `limit` is checked for its range by
// the route, so the problem says what it must be.
export const eventFeedQuerySchema = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          "A `nextCursor` this route answered (with the same `type`); none: the oldest event kept.",
      }),
    ),
    type: Type.Optional(stringEnum(WEBHOOK_EVENT_TYPES)),
    limit: Type.Optional(
      Type.String({
        pattern: "^[0-9]{1,6}$",
        description: `How many events at most, 1-${EVENT_FEED_MAX_LIMIT} (default ${EVENT_FEED_MAX_LIMIT}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventFeedQuery = Static<typeof eventFeedQuerySchema>;

export const eventFeedItemSchema = Type.Object({
  id: Type.String({ pattern: "^evt_[0-9a-f]{32}$" }),
  type: stringEnum(WEBHOOK_EVENT_TYPES),
  createdAt: Type.String(),
  /** As the OpenAPI document's `webhooks` entry of this type gives it. */
  data: Type.Object({}, { additionalProperties: true }),
});
export type EventFeedItem = Static<typeof eventFeedItemSchema>;

export const eventFeedResponseSchema = Type.Object(
  {
    data: Type.Array(eventFeedItemSchema),
    /** Where the next page starts; fewer than `limit` events means none more for now: poll again with it. */
    nextCursor: Type.String(),
  },
  {
    description:
      "Events oldest first, as webhook deliveries POST them. `nextCursor` carries each shard's position: " +
      "keep it and ask again with `after` to get the events that came since, none skipped.",
  },
);
