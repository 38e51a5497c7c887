// Shoppers holding real admissions: each joins the bench's room through the intake and polls its ticket until
// the leader admits it, and keeps the token the intake handed out (the one whose digest its pass holds), as a
// shopper's browser would. The room guards payments and admits as fast as a room may, so the joins wait a
// leader tick or two. Joins and polls go CONCURRENCY at a time; AUTH=off, so no credential is sent.
import { adminRequest } from "../harness/admin-client.ts";

export const BENCH_ROOM = "bench-gate";
/** Each shopper waits a leader tick or two for its admission, mostly idle: 32 at a time admitted about 60
 * shoppers/s, and the default run's 120,200 would have taken half an hour. */
const CONCURRENCY = 512;
const POLL_EVERY_MS = 100;
/** A ticket not admitted in this long means the room does not admit: the run stops. */
const ADMISSION_TIMEOUT_MS = 60_000;

export interface AdmittedShopper {
  userId: string;
  token: string;
}

/** The room every guarded payment of the run goes through: queueing, and admitting at its highest rate. */
export async function defineBenchRoom(baseUrl: string, adminKey: string): Promise<void> {
  await adminRequest(baseUrl, adminKey, "PUT", `/v1/rooms/${BENCH_ROOM}`, {
    mode: "on",
    admitPerSecond: 100_000,
    sessionSeconds: 3600,
    abandonSeconds: 3600,
    guards: ["payments"],
  });
}

export async function admitShoppers(
  baseUrl: string,
  userIds: readonly string[],
  progress: (admitted: number) => void = () => {},
): Promise<AdmittedShopper[]> {
  const shoppers: AdmittedShopper[] = new Array(userIds.length);
  let next = 0;
  let admitted = 0;
  const worker = async () => {
    while (next < userIds.length) {
      const index = next++;
      const userId = userIds[index]!;
      shoppers[index] = { userId, token: await admittedToken(baseUrl, userId) };
      admitted++;
    }
  };
  const ticker = setInterval(() => progress(admitted), 5000);
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, userIds.length) }, worker));
  } finally {
    clearInterval(ticker);
  }
  return shoppers;
}

interface TicketAnswer {
  ticketId: string;
  status: string;
  admissionToken?: string;
}

async function admittedToken(baseUrl: string, userId: string): Promise<string> {
  let ticket = await call<TicketAnswer>(`${baseUrl}/v1/rooms/${BENCH_ROOM}/tickets`, { userId });
  const deadline = Date.now() + ADMISSION_TIMEOUT_MS;
  while (ticket.status !== "admitted") {
    if (ticket.status !== "waiting") throw new Error(`${userId}'s ticket is ${ticket.status}, not admitted`);
    if (Date.now() > deadline)
      throw new Error(`${userId} was not admitted within ${ADMISSION_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    ticket = await call<TicketAnswer>(`${baseUrl}/v1/rooms/${BENCH_ROOM}/tickets/${ticket.ticketId}`);
  }
  if (ticket.admissionToken === undefined) throw new Error(`${userId} was admitted without a token`);
  return ticket.admissionToken;
}

async function call<T>(url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}
