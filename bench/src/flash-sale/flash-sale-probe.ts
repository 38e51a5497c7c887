// While the room queues, guarded requests that hold no valid admission keep arriving: no token, a token signed
// with another secret, another shopper's real token. Every one must be refused (403); a single 2xx is a
// request that got past the room. The probe runs until stopped and counts the answers. Its users are signed in
// (their own customer tokens): it tests the room, which a request without identity would never reach.
import { createHmac } from "node:crypto";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import type { KeepAliveClient } from "../harness/keep-alive-client.ts";

/** The probe's users (signed in, never admitted). */
export const PROBE_USERS = 1000;
export const probeUserId = (index: number): string => `probe-user-${index % PROBE_USERS}`;

export interface ProbeCounts {
  sent: number;
  byStatus: Record<string, number>;
  /** 2xx answers: requests the room should have refused. */
  admittedWithoutToken: number;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A well-formed HS256 token for the room, signed with a secret that is not the deployment's. */
function forgedToken(roomId: string, userId: string): string {
  const body = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({
    iss: "floodgate",
    sub: userId,
    room: roomId,
    tkt: "tkt_0000000000AAAAAAAAAAAAAAAA",
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 600,
  })}`;
  return `${body}.${createHmac("sha256", "not-the-deployment-secret").update(body).digest("base64url")}`;
}

export function startGuardProbe(options: {
  client: KeepAliveClient;
  identity: BenchIdentity;
  roomId: string;
  everyMs: number;
  /** A real admission token of some admitted shopper, once there is one (presented for another user). */
  someoneElsesToken: () => string | null;
  /** The guarded request a probe user sends: by default a payment (a payments room); a sale room's is an order. */
  guarded?: (userId: string) => { path: string; body: unknown };
}): { stop(): Promise<ProbeCounts> } {
  const guarded =
    options.guarded ?? ((userId: string) => ({ path: "/v1/payments", body: { userId, amount: 1 } }));
  const counts: ProbeCounts = { sent: 0, byStatus: {}, admittedWithoutToken: 0 };
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const kind = counts.sent % 3;
    const userId = probeUserId(counts.sent);
    const token =
      kind === 1 ? forgedToken(options.roomId, userId) : kind === 2 ? options.someoneElsesToken() : null;
    counts.sent++;
    const { path, body } = guarded(userId);
    const request = options.client
      .send("POST", path, body, {
        ...options.identity.shopperHeaders(userId),
        ...(token ? { "admission-token": token } : {}),
      })
      .then(
        ({ status }) => {
          counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
          if (status >= 200 && status < 300) counts.admittedWithoutToken++;
        },
        () => {
          counts.byStatus.error = (counts.byStatus.error ?? 0) + 1;
        },
      )
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  const timer = setInterval(send, options.everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      return counts;
    },
  };
}
