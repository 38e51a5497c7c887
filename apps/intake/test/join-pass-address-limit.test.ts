// A join carrying a pass is checked by the pass's ES256 signature, and room joins are limited per client address
// (room-joins.ip): the address's token is taken before that check, so forged passes from one address meet the
// same 429 as any join over the limit, without a signature check each (they used to be refused 403 after it,
// never reaching the address's bucket).
import { mintJoinPass } from "@floodgate/admission";
import type { TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, post } from "./support/intake-test-kit.ts";
import { startWithDropRoom } from "./support/shop-gate-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  ({ env, app } = await startWithDropRoom("join-pass-address-limit", { RATE_LIMITS: "room-joins.ip=1/m:3" }));
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const bypassFor = (userId: string) =>
  mintJoinPass(app.admission.tokens, {
    roomId: "drop",
    userId,
    pass: { kind: "bypass" },
    expiresInSeconds: 60,
  }).token;

/** Carol's valid pass with its subject rewritten: well formed, its signature no longer holds. */
function forgedPass(userId: string): string {
  const [header, payload, signature] = bypassFor("carol").split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: userId })).toString("base64url");
  return `${header}.${forged}.${signature}`;
}

describe("a join with a pass, from an address over its limit", () => {
  it("is refused 429 before its pass is verified", async () => {
    // A valid pass is taken as usual under the limit (one of the address's three tokens).
    const carol = await post(app, "/v1/rooms/drop/tickets", { userId: "carol", pass: bypassFor("carol") });
    expect(carol.statusCode, carol.body).toBe(201);
    const join = (userId: string) =>
      post(app, "/v1/rooms/drop/tickets", { userId, pass: forgedPass(userId) });
    expectProblem(await join("dave"), 403, "join_pass_invalid", "pass");
    expectProblem(await join("erin"), 403, "join_pass_invalid", "pass");

    const { tokens } = app.admission;
    const verify = tokens.verifyTyped.bind(tokens);
    let verified = 0;
    tokens.verifyTyped = ((...args: Parameters<typeof verify>) => {
      verified++;
      return verify(...args);
    }) as typeof tokens.verifyTyped;
    try {
      expectProblem(await join("frank"), 429, "rate_limited", "client address");
      expectProblem(await join("grace"), 429, "rate_limited", "client address");
      expect(verified).toBe(0);
    } finally {
      tokens.verifyTyped = verify;
    }
  });
});
