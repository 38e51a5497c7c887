// `admitPerSecond: "auto"` through the admin API: accepted beside a number, anything else refused naming the
// field with nothing written, and the room's view shows the rate the leader (this process) sets for it.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-auto-rate", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const room = (admitPerSecond: unknown) => ({ mode: "on", admitPerSecond, sessionSeconds: 300 });
const putRoom = (roomId: string, body: object) =>
  documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: body,
  });
const getRoom = (roomId: string) =>
  documentedInject(app, { method: "GET", url: `/v1/rooms/${roomId}`, headers: adminHeaders() });

describe("admitPerSecond auto", () => {
  it('refuses anything but a rate or "auto", naming the field, and writes nothing', async () => {
    for (const value of ["fast", "AUTO", "", null, 0, -1, 1.5])
      expectProblem(await putRoom("auto-bad", room(value)), 400, "validation_error", "admitPerSecond");
    expect((await getRoom("auto-bad")).statusCode).toBe(404);
    expect(await app.redis.sismember(app.admission.keys.rooms(), "auto-bad")).toBe(0);
  });

  it("is taken, shown as auto, and the room shows the rate the leader sets for it", async () => {
    const defined = await putRoom("auto-room", room("auto"));
    expect(defined.statusCode, defined.body).toBe(201);
    expect(defined.json()).toMatchObject({ admitPerSecond: "auto" });
    const shown = await waitUntil(
      async () => (await getRoom("auto-room")).json(),
      (body) => typeof body.autoAdmitPerSecond === "number",
      "the leader's rate for the room",
    );
    expect(shown.admitPerSecond).toBe("auto");
    expect(shown.autoAdmitPerSecond).toBeGreaterThanOrEqual(1);
    // A room with a number keeps it, and shows no auto rate.
    expect((await putRoom("auto-room", room(25))).statusCode).toBe(200);
    expect((await getRoom("auto-room")).json()).toMatchObject({
      admitPerSecond: 25,
      autoAdmitPerSecond: null,
    });
  });
});
