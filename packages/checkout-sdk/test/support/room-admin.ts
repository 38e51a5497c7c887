// What the tests do as the operator and as the crowd, straight over HTTP: define rooms, revoke a ticket, change
// a rate limit, and fill a queue with other shoppers.
import type { RoomMode } from "@floodgate/domain";

/** The intake's ADMIN_API_KEY in these tests. */
export const ADMIN_API_KEY = "checkout-sdk-tests-admin-key";

const adminHeaders = { authorization: `Bearer ${ADMIN_API_KEY}`, "content-type": "application/json" };

async function expectStatus(response: Response, statuses: number[], what: string): Promise<void> {
  if (!statuses.includes(response.status)) {
    throw new Error(`${what}: ${response.status} ${await response.text()}`);
  }
}

export interface RoomChanges {
  mode?: RoomMode;
  admitPerSecond?: number;
  sessionSeconds?: number;
  abandonSeconds?: number;
  startsAt?: string | null;
  /** From this time the room is closed: joins refused 410 room_closed, waiting tickets told closed. */
  endsAt?: string | null;
  guards?: string[];
  /** A room selling these products guards only the orders naming them, and tells each place the units left. */
  products?: string[];
}

/** Defines or changes a room: by default queueing always, guarding nothing. */
export async function putRoom(baseUrl: string, roomId: string, changes: RoomChanges = {}): Promise<void> {
  const body = { mode: "on", admitPerSecond: 10, sessionSeconds: 60, guards: [], ...changes };
  const response = await fetch(`${baseUrl}/v1/rooms/${roomId}`, {
    method: "PUT",
    headers: adminHeaders,
    body: JSON.stringify(body),
  });
  await expectStatus(response, [200, 201], `PUT room ${roomId}`);
}

export async function revokeTicket(baseUrl: string, roomId: string, ticketId: string): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/rooms/${roomId}/tokens/${ticketId}`, {
    method: "DELETE",
    headers: { authorization: adminHeaders.authorization },
  });
  await expectStatus(response, [204], `revoke ${ticketId}`);
}

export async function setUserRateLimit(
  baseUrl: string,
  routeClass: string,
  user: { rate: number; burst: number },
): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/rate-limits/${routeClass}`, {
    method: "PUT",
    headers: adminHeaders,
    body: JSON.stringify({ user }),
  });
  await expectStatus(response, [200], `rate limit of ${routeClass}`);
}

export async function resetRateLimit(baseUrl: string, routeClass: string): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/rate-limits/${routeClass}`, {
    method: "DELETE",
    headers: { authorization: adminHeaders.authorization },
  });
  await expectStatus(response, [200], `reset rate limit of ${routeClass}`);
}

/** Other shoppers take their places first, in this order (joined by the shop's server, naming each). */
export async function joinAhead(
  baseUrl: string,
  serverKey: string,
  roomId: string,
  userIds: string[],
): Promise<void> {
  for (const userId of userIds) {
    const response = await fetch(`${baseUrl}/v1/rooms/${roomId}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({ userId }),
    });
    await expectStatus(response, [201], `join of ${userId}`);
  }
}

/** A join pass the shop's server mints with its server key for one shopper, and hands that shopper's page. */
export async function mintJoinPass(
  baseUrl: string,
  serverKey: string,
  roomId: string,
  userId: string,
  kind: string,
): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/rooms/${roomId}/passes`, {
    method: "POST",
    headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
    body: JSON.stringify({ userId, kind }),
  });
  await expectStatus(response, [201], `pass for ${userId}`);
  return ((await response.json()) as { pass: string }).pass;
}
