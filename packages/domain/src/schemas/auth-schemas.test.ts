import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
  type ApiKeyListResponse,
  apiKeyCreateRequestSchema,
  apiKeyListResponseSchema,
  type CustomerSessionRequest,
  customerSessionRequestSchema,
  customerSessionResponseSchema,
} from "./auth-schemas.ts";

// The same JSON Schema objects the routes hand to Fastify; TypeBox's compiler stands in for its ajv here (both
// read the keywords, neither coerces: ajv runs with coerceTypes false in the intake).
const apiKeyCreate = Compile(apiKeyCreateRequestSchema);
const session = Compile(customerSessionRequestSchema);

describe("POST /v1/api-keys body", () => {
  it("takes a name of 1 to 100 characters", () => {
    expect(apiKeyCreate.Check({ name: "k" })).toBe(true);
    expect(apiKeyCreate.Check({ name: "k".repeat(100) })).toBe(true);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a 101-character name", { name: "k".repeat(101) }],
    ["a numeric name", { name: 7 }],
    ["an unknown field", { name: "shop", scope: "all" }],
  ])("refuses %s", (_, body) => {
    expect(apiKeyCreate.Check(body)).toBe(false);
  });
});

describe("POST /v1/customer-sessions body", () => {
  it("takes a userId and an optional ttlSeconds from 60 to 86400", () => {
    const bodies: CustomerSessionRequest[] = [
      { userId: "shopper_1" },
      { userId: "u".repeat(64), ttlSeconds: 60 },
      { userId: "A-b_9", ttlSeconds: 86_400 },
    ];
    for (const body of bodies) expect(session.Check(body)).toBe(true);
  });

  it.each([
    ["no userId", { ttlSeconds: 600 }],
    ["an empty userId", { userId: "" }],
    ["a 65-character userId", { userId: "u".repeat(65) }],
    ["a userId with a space", { userId: "a b" }],
    ["a ttl of 59", { userId: "u", ttlSeconds: 59 }],
    ["a ttl of 86401", { userId: "u", ttlSeconds: 86_401 }],
    ["a fractional ttl", { userId: "u", ttlSeconds: 60.5 }],
    ["a ttl as a string", { userId: "u", ttlSeconds: "600" }],
    ["an unknown field", { userId: "u", role: "admin" }],
  ])("refuses %s", (_, body) => {
    expect(session.Check(body)).toBe(false);
  });
});

describe("responses", () => {
  it("list keys with revokedAt null or a time, the key itself only when it was just created", () => {
    const list: ApiKeyListResponse = {
      data: [
        { id: "key_1", name: "shop", createdAt: "2026-11-25T00:00:00.000Z", revokedAt: null, key: "fg_sk_x" },
        {
          id: "key_2",
          name: "old",
          createdAt: "2026-11-24T00:00:00.000Z",
          revokedAt: "2026-11-25T00:00:00.000Z",
        },
      ],
    };
    expect(Compile(apiKeyListResponseSchema).Check(list)).toBe(true);
    expect(apiKeyListResponseSchema.properties.data.items.required).toEqual([
      "id",
      "name",
      "createdAt",
      "revokedAt",
    ]);
  });

  it("answer a session with its token, user and expiry", () => {
    expect(customerSessionResponseSchema.required).toEqual(["token", "userId", "expiresAt"]);
  });
});
