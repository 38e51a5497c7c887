// Accepted-and-lost: every request a probe got a 202 for must reach a status past "pending", read from its
// Location (GET /v1/payments/:id, /v1/orders/:id, /v1/coupon-issues/:id) with the credential that made it.
// A 202 that is still pending at the deadline, or whose Location answers 404, counts as lost.
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import type { AcceptedRequest } from "./probe-tally.ts";

export interface AcceptedAudit {
  accepted: number;
  acceptedAndLost: number;
  /** location -> the last thing read, for each one lost. */
  lost: { location: string; probe: string; last: string }[];
  finalStatuses: Record<string, number>;
}

const POLL_EVERY_MS = 500;

export async function auditAccepted(
  baseUrl: string,
  accepted: readonly AcceptedRequest[],
  deadlineMs: number,
): Promise<AcceptedAudit> {
  const client = new KeepAliveClient(baseUrl, 8);
  const pending = new Map(accepted.map((a) => [a.location, { request: a, last: "not read" }]));
  const finalStatuses: Record<string, number> = {};
  const deadline = Date.now() + deadlineMs;
  try {
    while (pending.size > 0 && Date.now() < deadline) {
      for (const [location, entry] of pending) {
        const answer = await client
          .send("GET", location, undefined, { authorization: entry.request.authorization })
          .catch((error: Error) => ({ status: 0, body: error.message }));
        const status = answer.status === 200 ? statusOf(answer.body) : null;
        entry.last = `${answer.status} ${answer.body.slice(0, 200)}`;
        if (status !== null && status !== "pending") {
          finalStatuses[status] = (finalStatuses[status] ?? 0) + 1;
          pending.delete(location);
        }
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  } finally {
    client.close();
  }
  return {
    accepted: accepted.length,
    acceptedAndLost: pending.size,
    lost: [...pending].map(([location, { request, last }]) => ({ location, probe: request.probe, last })),
    finalStatuses,
  };
}

function statusOf(body: string): string | null {
  try {
    const { status } = JSON.parse(body) as { status?: unknown };
    return typeof status === "string" ? status : null;
  } catch {
    return null;
  }
}
