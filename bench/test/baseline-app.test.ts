// The baseline has no identity: the paying user is the body's, so a body without one is refused before any
// query (the pool is never touched).
import { describe, expect, it } from "vitest";
import { buildBaselineApp } from "../src/baseline/baseline-app.ts";

describe("the baseline's payment body", () => {
  it("still requires userId, which Floodgate's shared schema leaves optional for shoppers", async () => {
    const app = buildBaselineApp({} as never, "EUR");
    const response = await app.inject({
      method: "POST",
      url: "/v1/payments",
      headers: { "idempotency-key": "k-1" },
      payload: { amount: 100 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ message: "body must have required property 'userId'" });
    await app.close();
  });
});
