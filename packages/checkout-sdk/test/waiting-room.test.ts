// A WaitingRoom in Node against a real intake process and Redis, on the paths a checkout page cannot see coming:
// sockets that never connect (polling keeps the place), a connection cut mid-wait (the socket comes back),
// an operator revoking the ticket, and the page giving up.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdmissionLostError, type AdmissionUpdate, WaitingRoom } from "../src/index.ts";
import { eventually } from "./support/eventually.ts";
import { refusal } from "./support/refusal.ts";
import { refusedWebSocket } from "./support/refused-web-socket.ts";
import { ADMIN_API_KEY, putRoom, revokeTicket } from "./support/room-admin.ts";

let env: TestEnvironment;
let intake: IntakeProcess;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-room", { env: { ADMIN_API_KEY } });
  intake = await startIntakeProcess(env.config);
});

afterAll(async () => {
  await intake?.kill();
  await env?.cleanup();
});

// Nobody is admitted before a room's start: a ticket waits exactly as long as the test wants, and bringing the
// start forward to now lets the room admit it.
const later = () => new Date(Date.now() + 600_000).toISOString();
const now = () => new Date().toISOString();
const positions = (updates: AdmissionUpdate[]) => updates.filter((update) => update.type === "position");

describe("waiting without a working WebSocket", () => {
  it("polls after the socket attempts fail, or at once when there is no WebSocket", async () => {
    await putRoom(intake.baseUrl, "no-sockets", { startsAt: later() });
    const refused = refusedWebSocket();
    const common = { baseUrl: intake.baseUrl, roomId: "no-sockets", pollIntervalMs: 200 };
    const blocked = new WaitingRoom({ ...common, WebSocket: refused.WebSocket, maxSocketFailures: 2 });
    const socketless = new WaitingRoom({ ...common, WebSocket: undefined });
    expect(await blocked.join("behind-a-proxy")).toMatchObject({ status: "waiting", position: 1 });
    expect((await socketless.join("old-browser")).startsAt).toBeDefined();

    const blockedUpdates: AdmissionUpdate[] = [];
    const socketlessUpdates: AdmissionUpdate[] = [];
    const admissions = Promise.all([
      blocked.waitForAdmission((update) => blockedUpdates.push(update)),
      socketless.waitForAdmission((update) => socketlessUpdates.push(update)),
    ]);
    for (const updates of [blockedUpdates, socketlessUpdates]) {
      await eventually(() => positions(updates).length > 0, "a polled position");
    }
    await putRoom(intake.baseUrl, "no-sockets", { startsAt: now() });
    const admitted = await admissions;
    expect(admitted.every((admission) => admission.admissionToken.length > 0)).toBe(true);
    for (const updates of [blockedUpdates, socketlessUpdates]) {
      expect(updates.every((update) => update.via === "polling")).toBe(true);
      expect(updates.at(-1)).toMatchObject({ type: "admitted" });
    }
    expect(refused.attempts()).toBe(2);
  });
});

describe("a WebSocket cut mid-wait", () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy("127.0.0.1", intake.port);
  });
  afterAll(() => proxy?.close());

  it("reconnects, keeps waiting over the socket, and reports an unchanged place once", async () => {
    await putRoom(intake.baseUrl, "flaky-network", { startsAt: later() });
    const sockets = { opened: 0, ended: 0 };
    class WatchedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        this.addEventListener("open", () => sockets.opened++);
        this.addEventListener("close", () => sockets.ended++);
      }
    }
    const room = new WaitingRoom({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      roomId: "flaky-network",
      WebSocket: WatchedWebSocket,
      maxSocketFailures: 50,
    });
    await room.join("on-a-train");
    const updates: AdmissionUpdate[] = [];
    const admission = room.waitForAdmission((update) => updates.push(update));
    await eventually(() => positions(updates).length > 0, "the first position");

    await proxy.down();
    // The open socket is cut, then at least one reconnect is refused.
    await eventually(() => sockets.ended >= 2, "a refused reconnect while the network is down");
    await proxy.up();
    await putRoom(intake.baseUrl, "flaky-network", { startsAt: now() });
    expect((await admission).admissionToken).toBeTruthy();

    expect(sockets.opened).toBeGreaterThanOrEqual(2);
    expect(updates.every((update) => update.via === "websocket")).toBe(true);
    // Each new socket starts with the current place; the page heard it once, when it was new.
    expect(positions(updates)).toHaveLength(1);
    expect(updates.at(-1)).toMatchObject({ type: "admitted" });
  });
});

describe("a wait that ends without admission", () => {
  beforeAll(() => putRoom(intake.baseUrl, "not-yet", { startsAt: later() }));

  it("rejects with AdmissionLostError when the ticket is revoked", async () => {
    const room = new WaitingRoom({ baseUrl: intake.baseUrl, roomId: "not-yet" });
    const ticket = await room.join("revoked-shopper");
    const updates: AdmissionUpdate[] = [];
    const waiting = refusal(room.waitForAdmission((update) => updates.push(update)));
    await eventually(
      () => updates.some((update) => update.via === "websocket"),
      "a position over the socket",
    );
    await revokeTicket(intake.baseUrl, "not-yet", ticket.ticketId);
    const lost = await waiting;
    expect(lost).toBeInstanceOf(AdmissionLostError);
    expect(lost).toMatchObject({ reason: "revoked", ticketId: ticket.ticketId, roomId: "not-yet" });
  });

  it("rejects with an AbortError when the page stops waiting", async () => {
    const room = new WaitingRoom({ baseUrl: intake.baseUrl, roomId: "not-yet" });
    await room.join("leaves-the-page");
    const updates: AdmissionUpdate[] = [];
    const waiting = refusal(room.waitForAdmission((update) => updates.push(update)));
    await eventually(() => updates.length > 0, "a position");
    room.stop();
    expect(await waiting).toMatchObject({ name: "AbortError" });
  });
});
