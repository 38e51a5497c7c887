// The 409 problems of POST /v1/orders: the shared problem schema, with the per-line fields of
// unit_limit_exceeded (held, limit) beside out_of_stock's (available). Declared here rather than in
// @floodgate/domain's problem schema while those schemas are being moved to TypeBox; the serializer drops any
// field a response schema does not name, so without it the lines would lose held and limit.
import { problemResponseSchema } from "@floodgate/domain";

export const orderConflictResponseSchema = {
  ...problemResponseSchema,
  properties: {
    ...problemResponseSchema.properties,
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: {
          line: { type: "integer" },
          productId: { type: "string" },
          requested: { type: "integer" },
          available: { type: "integer" },
          held: { type: "integer" },
          limit: { type: "integer" },
        },
      },
    },
  },
} as const;
