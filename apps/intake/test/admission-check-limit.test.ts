// The public admission check (POST /v1/rooms/:roomId/admissions/verify) asks for no credential and may verify an
// ES256 signature, so the client address's token bucket of the `admission-checks` class limits it: a flood from
// one address, well-formed tokens or garbage alike, gets the 429 every limited route gives, before any check
// runs. The class takes no user limit (its caller is a shop's server, not a user), in RATE_LIMITS and at run time.
import { loadConfig } from "@floodgate/config";
import type { TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem } from "./support/intake-test-kit.ts";
import { admittedToken, startWithDropRoom } from "./support/shop-gate-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  ({ env, app } = await startWithDropRoom("admission-check-limit", {
    RATE_LIMITS: "admission-checks.ip=1/m:2",
  }));
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const check = (token: string) =>
  documentedInject(app, { method: "POST", url: "/v1/rooms/drop/admissions/verify", payload: { token } });

describe("the admission check's address limit", () => {
  it("answers the burst, then 429 with Retry-After for any token from that address", async () => {
    const token = await admittedToken(app, "drop", "limited");
    const first = await check(token);
    expect(first.json()).toEqual({ valid: true, reason: null });
    expect((await check("not-a-token")).json()).toEqual({ valid: false, reason: "malformed" });

    // Each refusal below comes before the token is read: counted on the intake's own reader.
    const { tokens } = app.admission;
    const read = tokens.read.bind(tokens);
    let reads = 0;
    tokens.read = (text: string) => {
      reads++;
      return read(text);
    };
    try {
      const refused = await check(token);
      const problem = expectProblem(refused, 429, "rate_limited", "client address");
      expect(problem.detail).toContain("admission-checks");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(refused.headers["ratelimit-policy"]).toContain('"admission-checks-ip"');
      // Garbage is refused the same way: the flood never reaches the token's parsing or a signature check.
      expectProblem(await check("not-a-token"), 429, "rate_limited", "client address");
      expect(reads).toBe(0);
    } finally {
      tokens.read = read;
    }
  });

  it("is listed and changed at run time, and refuses a user limit as the configuration does", async () => {
    const listed = await documentedInject(app, {
      method: "GET",
      url: "/v1/rate-limits",
      headers: adminHeaders(),
    });
    expect(listed.json().policies).toContainEqual({
      routeClass: "admission-checks",
      user: null,
      ip: { rate: 1 / 60, burst: 2 },
    });
    const userLimit = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rate-limits/admission-checks",
      headers: adminHeaders(),
      payload: { user: { rate: 1, burst: 1 } },
    });
    const problem = expectProblem(userLimit, 400, "validation_error", "user");
    expect(problem.detail).toContain("admission-checks is limited per IP only");
    expect(() => loadConfig({ RATE_LIMITS: "admission-checks.user=1/s:1" })).toThrow(
      /RATE_LIMITS.*admission-checks is limited per IP only/,
    );
    expect(loadConfig({}).rateLimits["admission-checks"]).toEqual({
      user: null,
      ip: { rate: 5000, burst: 10_000 },
    });
  });
});
