// Waiting rooms through the HTTP API, with this process as the admission leader: operators define rooms;
// while a room queues its guarded routes take only requests with a valid admission token of the same user and
// room; users join, wait, poll and pay once admitted.
import { Es256AdmissionTokens } from "@floodgate/admission";
import { generateAdmissionSigningKey } from "@floodgate/auth";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  get,
  metricValue,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-http", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const room = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: 20,
  sessionSeconds: 60,
  guards: ["payments"],
  ...changes,
});
const putRoom = (roomId: string, body: unknown, headers: Record<string, string> = adminHeaders()) =>
  documentedInject(app, { method: "PUT", url: `/v1/rooms/${roomId}`, headers, payload: body as object });
const join = (roomId: string, userId: string) => post(app, `/v1/rooms/${roomId}/tickets`, { userId });
const poll = (roomId: string, ticketId: string) => get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`);
const pay = (userId: string, token?: string) =>
  post(app, "/v1/payments", { userId, amount: 100 }, token ? { "admission-token": token } : {});

async function admittedToken(roomId: string, userId: string): Promise<{ ticketId: string; token: string }> {
  const joined = await join(roomId, userId);
  expect([200, 201]).toContain(joined.statusCode);
  const { ticketId } = joined.json();
  const view = await waitUntil(
    async () => (await poll(roomId, ticketId)).json(),
    (ticket) => ticket.status === "admitted",
    `${userId} to be admitted`,
  );
  return { ticketId, token: view.admissionToken };
}

describe("the rooms admin API", () => {
  it("defines a room (201), changes it (200), shows it with its numbers, and needs the admin key", async () => {
    expectProblem(await putRoom("shop", room(), {}), 401, "unauthorized", "Authorization");
    const created = await putRoom("shop", room());
    expect(created.statusCode).toBe(201);
    expect(created.headers.location).toBe("/v1/rooms/shop");
    expect(created.json()).toMatchObject({
      roomId: "shop",
      mode: "on",
      queueing: true,
      waiting: 0,
      admitPerSecond: 20,
      sessionSeconds: 60,
      abandonSeconds: 60,
      startsAt: null,
      guards: ["payments"],
    });
    expect((await putRoom("shop", room({ admitPerSecond: 10 }))).statusCode).toBe(200);
    const shown = await documentedInject(app, {
      method: "GET",
      url: "/v1/rooms/shop",
      headers: adminHeaders(),
    });
    expect(shown.json()).toMatchObject({ admitPerSecond: 10, admittedLastMinute: 0, abandoned: 0 });
    expectProblem(
      await documentedInject(app, { method: "GET", url: "/v1/rooms/nowhere", headers: adminHeaders() }),
      404,
      "not_found",
      "roomId",
    );
  });

  it("refuses bad definitions naming the field, and a second active room on the same route class", async () => {
    const bad: [Record<string, unknown>, string][] = [
      [room({ mode: "sometimes" }), "mode"],
      [room({ admitPerSecond: 0 }), "admitPerSecond"],
      [room({ admitPerSecond: 1.5 }), "admitPerSecond"],
      [room({ sessionSeconds: 5 }), "sessionSeconds"],
      [room({ guards: ["refunds"] }), "guards.0"],
      [room({ guards: ["payments", "payments"] }), "guards"],
      [room({ startsAt: "tomorrow" }), "startsAt"],
      [room({ startsAt: "2026-02-30T10:00:00Z" }), "startsAt"],
      [room({ colour: "red" }), "colour"],
    ];
    for (const [body, field] of bad)
      expectProblem(await putRoom("bad-room", body), 400, "validation_error", field);
    expectProblem(await putRoom("bad room", room()), 400, "validation_error", "roomId");
    expectProblem(await putRoom("rival", room()), 409, "room_guard_conflict", "guards");
    // A room that is off guards nothing, so it may name the class.
    expect((await putRoom("rival", room({ mode: "off" }))).statusCode).toBe(201);
  });

  it("lets one of several rooms defined at the same moment guard a class, never two", async () => {
    const answers = await Promise.all(
      ["race-a", "race-b", "race-c"].map((id) => putRoom(id, room({ guards: ["coupon-issues"] }))),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409]);
    for (const id of ["race-a", "race-b", "race-c"]) await putRoom(id, room({ mode: "off", guards: [] }));
  });
});

describe("a queueing room", () => {
  it("refuses a guarded request without an admission: 403 naming the room and where to join; nothing stored", async () => {
    await putRoom("shop", room());
    const before = await totalStreamLength(app);
    const refused = await pay("walk-in");
    const problem = expectProblem(refused, 403, "waiting_room_required", "Admission-Token");
    expect(problem).toMatchObject({
      type: "/problems/waiting-room-required",
      roomId: "shop",
      joinUrl: "/v1/rooms/shop/tickets",
      reason: "missing",
    });
    expect(await totalStreamLength(app)).toBe(before);
    // A route class the room does not guard is not affected.
    expect((await post(app, "/v1/wallets/walk-in/deposits", { amount: 100 })).statusCode).toBe(202);
  });

  it("gives one place per user, admits it, and takes its admission token on the guarded route", async () => {
    const joined = await join("shop", "queuer");
    expect(joined.statusCode).toBe(201);
    const ticket = joined.json();
    expect(ticket).toMatchObject({ roomId: "shop", ticketId: expect.stringMatching(/^tkt_/) });
    if (ticket.status === "waiting") {
      expect(ticket.position).toBeGreaterThanOrEqual(1);
      expect(ticket.etaSeconds).toBeGreaterThanOrEqual(0);
    }
    const again = await join("shop", "queuer");
    expect(again.json().ticketId).toBe(ticket.ticketId);
    const { token } = await admittedToken("shop", "queuer");
    expect(token.split(".")).toHaveLength(3);
    expect((await pay("queuer", token)).statusCode).toBe(202);
    expectProblem(
      await get(app, "/v1/rooms/shop/tickets/tkt_0000000000AAAAAAAAAAAAAAAA"),
      404,
      "not_found",
      "ticketId",
    );
    expectProblem(await join("nowhere", "queuer"), 404, "not_found", "roomId");
  });

  it("refuses forged, expired, other-user, other-room and revoked tokens the same way, and counts why", async () => {
    const { ticketId, token } = await admittedToken("shop", "holder");
    const reasonOf = async (userId: string, presented: string) => {
      const response = await pay(userId, presented);
      return expectProblem(response, 403, "waiting_room_required").reason;
    };
    const [header, payload, signature] = token.split(".");
    const flipped = `${signature!.slice(0, -2)}${signature!.endsWith("AA") ? "BB" : "AA"}`;
    expect(await reasonOf("holder", `${header}.${payload}.${flipped}`)).toBe("bad_signature");
    expect(await reasonOf("holder", "not-a-token")).toBe("malformed");
    expect(await reasonOf("someone-else", token)).toBe("wrong_user");
    const tokens = app.admission.tokens;
    const claims = { roomId: "shop", ticketId, userId: "holder", admittedAt: Date.now() - 120_000 };
    expect(await reasonOf("holder", tokens.issue({ ...claims, expiresAt: Date.now() - 1000 }))).toBe(
      "expired",
    );
    expect(
      await reasonOf("holder", tokens.issue({ ...claims, roomId: "rival", expiresAt: Date.now() + 60_000 })),
    ).toBe("wrong_room");
    // Signed by another deployment's key, under this deployment's kid: a bad signature.
    const ours = app.admission.signingKeys.signingKid()!;
    const foreign = new Es256AdmissionTokens({
      keys: [{ ...generateAdmissionSigningKey(), kid: ours, signsFrom: 0 }],
    });
    expect(await reasonOf("holder", foreign.issue({ ...claims, expiresAt: Date.now() + 60_000 }))).toBe(
      "bad_signature",
    );

    expect((await pay("holder", token)).statusCode).toBe(202);
    const revoke = (id: string) =>
      documentedInject(app, {
        method: "DELETE",
        url: `/v1/rooms/shop/tokens/${id}`,
        headers: adminHeaders(),
      });
    expect((await revoke(ticketId)).statusCode).toBe(204);
    expect(await reasonOf("holder", token)).toBe("revoked");
    expect((await poll("shop", ticketId)).json()).toMatchObject({ status: "revoked" });
    expectProblem(await revoke("tkt_0000000000AAAAAAAAAAAAAAAA"), 404, "not_found", "ticketId");

    const text = (await get(app, "/metrics")).body;
    for (const reason of ["bad_signature", "malformed", "wrong_user", "expired", "wrong_room", "revoked"]) {
      expect(
        metricValue(text, "floodgate_admission_tokens_rejected_total", { reason }),
      ).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("a room that does not queue", () => {
  it("lets guarded requests through without a token, and admits joins at once", async () => {
    // (A room switched from on to auto keeps queueing for the cool-down: a fresh auto room has never queued.)
    await putRoom("shop", room({ mode: "off" }));
    await putRoom("calm", room({ mode: "auto", admitPerSecond: 1000 }));
    expect((await pay("no-queue-user")).statusCode).toBe(202);
    const joined = await join("calm", "walk-in-joiner");
    expect(joined.json()).toMatchObject({ status: "admitted", admissionToken: expect.any(String) });
  });

  it("in auto mode starts queueing once guarded traffic exceeds admitPerSecond", async () => {
    await putRoom("surge", room({ mode: "auto", admitPerSecond: 3, guards: ["deposits"] }));
    await waitUntil(
      async () => {
        for (let i = 0; i < 10; i++) await post(app, `/v1/wallets/surger-${i}/deposits`, { amount: 1 });
        return (
          await documentedInject(app, { method: "GET", url: "/v1/rooms/surge", headers: adminHeaders() })
        ).json();
      },
      (view) => view.queueing === true,
      "the surge room to queue",
      20,
    );
    const refused = await post(app, "/v1/wallets/late-surger/deposits", { amount: 1 });
    expectProblem(refused, 403, "waiting_room_required");
    await putRoom("surge", room({ mode: "off", guards: ["deposits"] }));
  });
});
