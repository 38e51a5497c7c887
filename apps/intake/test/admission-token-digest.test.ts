// The intake admits an admission token by its digest, not its signature: the ticket's pass in the user's slot
// holds the digest of the one token handed out for the admission (grant-pass-1.lua), and the guarded script
// compares the presented token's with it (includes/admission-gate.lua). Every handout of one admission (the join,
// each poll, a socket, another intake) is that same token; any other token is refused, a validly signed one
// that was never handed out included. A pass the previous release granted holds no digest: its tokens pass by
// their signature. ES256 (the default) and HS256 go through the same path. Two intakes share one Redis.
import { grantPass, readTicket } from "@floodgate/admission";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  get,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";
import { openTicketSocket } from "./support/ticket-socket.ts";

const ALGORITHMS = ["ES256", "HS256"] as const;

describe.each(ALGORITHMS)("%s admission tokens at the intake", (alg) => {
  let env: TestEnvironment;
  let first: FastifyInstance;
  let second: FastifyInstance;

  beforeAll(async () => {
    env = await createTestEnvironment(`token-digest-${alg.toLowerCase()}`, {
      env: { ADMIN_API_KEY: ADMIN_KEY, ...(alg === "HS256" ? { ADMISSION_TOKEN_ALG: "HS256" } : {}) },
    });
    first = await buildApp(env.config, { logger: false });
    second = await buildApp(env.config, { logger: false });
    await Promise.all([first, second].map((app) => app.listen({ port: 0, host: "127.0.0.1" })));
    const room = { mode: "on", admitPerSecond: 200, sessionSeconds: 600 };
    await putRoom("drop", { ...room, guards: ["payments"] });
    await putRoom("other", { ...room, guards: [] });
    await putRoom("once", { ...room, guards: ["deposits"], admission: "one-shot" });
    await Promise.all([first, second].map((app) => app.admission.refresh()));
  });

  afterAll(async () => {
    await Promise.all([first, second].map((app) => app?.close()));
    await env?.cleanup();
  });

  async function putRoom(roomId: string, body: Record<string, unknown>) {
    const answer = await documentedInject(first, {
      method: "PUT",
      url: `/v1/rooms/${roomId}`,
      headers: adminHeaders(),
      payload: body,
    });
    expect([200, 201], answer.body).toContain(answer.statusCode);
  }

  const join = (app: FastifyInstance, roomId: string, userId: string) =>
    post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  const poll = (app: FastifyInstance, roomId: string, ticketId: string) =>
    get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`);
  const pay = (app: FastifyInstance, userId: string, token: string) =>
    post(app, "/v1/payments", { userId, amount: 100 }, { "admission-token": token });
  const verify = async (roomId: string, token: string) =>
    (
      await documentedInject(second, {
        method: "POST",
        url: `/v1/rooms/${roomId}/admissions/verify`,
        payload: { token },
      })
    ).json();
  /** Why a payment with the token is refused (403 waiting_room_required), or its status when it is not. */
  const refusal = async (userId: string, token: string): Promise<string | number> => {
    const answer = await pay(second, userId, token);
    if (answer.statusCode !== 403) return answer.statusCode;
    return String(expectProblem(answer, 403, "waiting_room_required", "Admission-Token").reason);
  };

  async function admitted(roomId: string, userId: string): Promise<{ ticketId: string; token: string }> {
    const joined = await join(first, roomId, userId);
    expect(joined.statusCode, joined.body).toBe(201);
    const { ticketId } = joined.json();
    const view = await waitUntil(
      async () => (await poll(first, roomId, ticketId)).json(),
      (ticket) => ticket.status === "admitted",
      `${userId} to be admitted`,
    );
    return { ticketId, token: view.admissionToken };
  }

  /** The claims the token carries, as the intake reads them. */
  function claimsOf(token: string) {
    const verdict = first.admission.tokens.verify(token);
    if (!verdict.ok) throw new Error(`not a valid token: ${verdict.reason}`);
    return verdict.claims;
  }

  /** `text` with its character at `index` replaced by another of the base64url alphabet. */
  const changeAt = (text: string, index: number) =>
    `${text.slice(0, index)}${text[index] === "A" ? "B" : "A"}${text.slice(index + 1)}`;

  it("hands out one token per admission: the join, every poll, a socket and another intake give the same", async () => {
    const { ticketId, token } = await admitted("drop", "one-token");
    expect((await poll(first, "drop", ticketId)).json().admissionToken).toBe(token);
    // Another intake signs its own (ES256 signatures differ each time) and hands out the pass's instead.
    expect((await poll(second, "drop", ticketId)).json().admissionToken).toBe(token);
    // HS256 signs the same claims the same way: a grant bringing any other token still answers the stored one.
    const { redis, keys } = first.admission;
    const expiresAt = claimsOf(token).expiresAt;
    const ticket = { roomId: "drop", ticketId, userId: "one-token", expiresAt };
    expect(await grantPass(redis, keys, ticket, "a-token-signed-elsewhere")).toBe(token);
    const again = await join(second, "drop", "one-token");
    expect(again.json()).toMatchObject({ ticketId, status: "admitted", admissionToken: token });
    const address = second.server.address() as { port: number };
    const socket = await openTicketSocket(
      `http://127.0.0.1:${address.port}`,
      "drop",
      ticketId,
      env.serverKey,
    );
    try {
      const pushed = await socket.next((m) => m.type === "admitted", "the socket's admission");
      expect(pushed.admissionToken).toBe(token);
    } finally {
      socket.close();
    }
    expect((await pay(second, "one-token", token)).statusCode).toBe(202);
    expect((await pay(first, "one-token", token)).statusCode).toBe(202);
    expect(await verify("drop", token)).toEqual({ valid: true, reason: null });
  });

  it("refuses every other token, however well signed or spelled, and stores nothing", async () => {
    const { ticketId, token } = await admitted("drop", "holder");
    const neighbour = await admitted("drop", "neighbour");
    const elsewhere = await admitted("other", "holder");
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = claimsOf(token);
    const json = Buffer.from(payload, "base64url").toString("utf8");
    const tokens = first.admission.tokens;
    const lastSignatureChar = signature.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const before = await totalStreamLength(first);

    const refused: [string, string, string | number][] = [
      // A byte changed in each part: the header is matched whole, a payload must parse, a signature is only
      // compared by the digest (the intake checks none).
      ["header changed", `${changeAt(header, 0)}.${payload}.${signature}`, "malformed"],
      ["payload changed", `${header}.${changeAt(payload, 0)}.${signature}`, "malformed"],
      ["signature changed", `${header}.${payload}.${changeAt(signature, 10)}`, "bad_signature"],
      // The same claims spelled otherwise (JSON whitespace): canonical base64url, readable, not handed out.
      [
        "payload respelled",
        `${header}.${Buffer.from(json.replace(",", ", ")).toString("base64url")}.${signature}`,
        "bad_signature",
      ],
      // Non-canonical base64url: padding, and the last character's unused bits set.
      ["signature padded", `${token}=`, "bad_signature"],
      [
        "signature's unused bits",
        `${header}.${payload}.${signature.slice(0, -1)}${alphabet[alphabet.indexOf(lastSignatureChar) + 1]}`,
        "bad_signature",
      ],
      ["payload padded", `${header}.${payload}=.${signature}`, "malformed"],
      // Validly signed with the intake's own key, for the same ticket, and never handed out.
      [
        "re-signed, never handed out",
        tokens.issue({ ...claims, admittedAt: claims.admittedAt - 1000 }),
        "bad_signature",
      ],
      // Another user's, another room's, and another user's ticket under this user's name (signed anew).
      ["another user's", neighbour.token, "wrong_user"],
      ["another room's", elsewhere.token, "wrong_room"],
      ["another ticket", tokens.issue({ ...claims, ticketId: neighbour.ticketId }), "unknown_ticket"],
    ];
    // ES256 signs differently each time: the very same claims re-signed are another token.
    if (alg === "ES256") {
      const resigned = tokens.issue(claims);
      expect(resigned).not.toBe(token);
      refused.push(["same claims re-signed", resigned, "bad_signature"]);
    }
    // Every case answered, then compared at once: a broken check shows each token it lets through.
    const answered: Record<string, string | number> = {};
    for (const [what, presented] of refused) {
      expect(presented, what).not.toBe(token);
      answered[what] = await refusal("holder", presented);
    }
    expect(answered).toEqual(Object.fromEntries(refused.map(([what, , reason]) => [what, reason])));
    expect(await totalStreamLength(first)).toBe(before);
    // The online check refuses what the guarded routes refuse (another user's token is valid for that user).
    for (const [what, presented] of refused.filter(([what]) => what !== "another user's")) {
      expect((await verify("drop", presented)).valid, what).toBe(false);
    }
    expect(await refusal("holder", token)).toBe(202);
    expect(ticketId).toBe(claims.ticketId);
  });

  it("refuses the handed-out token once revoked, expired or used (one-shot), as before", async () => {
    const revoked = await admitted("drop", "revoked-holder");
    const revoke = await documentedInject(first, {
      method: "DELETE",
      url: `/v1/rooms/drop/tokens/${revoked.ticketId}`,
      headers: adminHeaders(),
    });
    expect(revoke.statusCode).toBe(204);
    expect(await refusal("revoked-holder", revoked.token)).toBe("revoked");
    expect(await verify("drop", revoked.token)).toEqual({ valid: false, reason: "revoked" });

    // The session's end as the gate reads it (Redis TIME against the pass's end), passed.
    const ended = await admitted("drop", "ended-holder");
    const passes = first.admission.keys.roomPasses("drop", "ended-holder");
    await first.admission.redis.hset(passes, ended.ticketId, `admitted|${Date.now() - 1000}`);
    expect(await refusal("ended-holder", ended.token)).toBe("expired");
    expect(await verify("drop", ended.token)).toEqual({ valid: false, reason: "expired" });

    const once = await admitted("once", "one-shot-holder");
    const deposit = (key: string) =>
      post(
        second,
        "/v1/wallets/one-shot-holder/deposits",
        { amount: 100 },
        { "admission-token": once.token, "idempotency-key": key },
      );
    expect((await deposit("first")).statusCode).toBe(202);
    expectProblem(await deposit("second"), 403, "admission_used", "Admission-Token");
  });

  it("lets a pass of the previous release (no digest) admit by the token's signature alone", async () => {
    const joined = await join(first, "drop", "upgraded");
    const { ticketId } = joined.json();
    const { redis, keys } = first.admission;
    // Admitted by the leader, and granted as the previous release did: the status alone, no token stored.
    const ticket = await waitUntil(
      () => readTicket(redis, keys, "drop", ticketId),
      (read) => read?.status === "admitted",
      "the ticket to be admitted",
    );
    const passes = keys.roomPasses("drop", "upgraded");
    await redis.hdel(passes, `token:${ticketId}`);
    await redis.hset(passes, ticketId, `admitted|${ticket!.expiresAt}`);
    const claims = {
      roomId: "drop",
      ticketId,
      userId: "upgraded",
      admittedAt: ticket!.admittedAt!,
      expiresAt: ticket!.expiresAt!,
    };
    const oldToken = first.admission.tokens.issue(claims);
    const [header, payload, signature] = oldToken.split(".") as [string, string, string];
    expect(await refusal("upgraded", oldToken)).toBe(202);
    expect(await refusal("upgraded", `${header}.${payload}.${changeAt(signature, 10)}`)).toBe(
      "bad_signature",
    );
    expect(await verify("drop", oldToken)).toEqual({ valid: true, reason: null });
    // A new intake's grant leaves such a pass as it is: the old intake's tokens keep passing.
    const polled = (await poll(second, "drop", ticketId)).json().admissionToken;
    expect(await redis.hget(passes, `token:${ticketId}`)).toBeNull();
    expect(await refusal("upgraded", polled)).toBe(202);
    expect(await refusal("upgraded", oldToken)).toBe(202);
  });
});
