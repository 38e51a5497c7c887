// One delivery attempt: POST the event's JSON, signed, and report the status code or what went wrong. Node's
// http client (not fetch) so the address check sits in the connection's own DNS lookup: the address checked is
// the address connected to, whatever DNS answered when the endpoint was created (no rebinding into the shop's
// network). Redirects are not followed (a 3xx is a failed attempt): a redirect could point anywhere.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { isPrivateAddress, type WebhookSignatureScheme } from "@floodgate/domain";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signStandardWebhook, signWebhook } from "@floodgate/node";

export interface DeliveryTarget {
  url: string;
  scheme: WebhookSignatureScheme;
  /** The current secret, then the one a rotation replaced while it still signs: one signature each. */
  secrets: readonly string[];
  eventId: string;
  payload: string;
}

/** The signature headers of the endpoint's scheme, signed now (a retry is signed afresh). */
export function signatureHeaders(target: DeliveryTarget): Record<string, string> {
  const { scheme, secrets, eventId, payload } = target;
  switch (scheme) {
    case "standard-webhooks":
      // The event id is the message id: a retry or redelivery carries the same, as the receiver de-duplicates.
      return signStandardWebhook({ id: eventId, payload, secret: secrets });
    case "floodgate-signature":
      return { [SIGNATURE_HEADER]: signWebhook({ payload, secret: secrets }), [EVENT_ID_HEADER]: eventId };
  }
}

export type AttemptResult =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string };

const refusedAddress = (host: string, address: string) =>
  `${host} resolves to ${address}, a private, loopback or link-local address (WEBHOOK_ALLOW_PRIVATE=true allows it)`;

/** dns.lookup, refusing every answer that holds a private address. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
    if (blocked) return callback(new Error(refusedAddress(hostname, blocked.address)), "", 0);
    if ((options as { all?: boolean }).all)
      return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};

export function deliverOnce(
  target: DeliveryTarget,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // An address literal skips the lookup: checked here instead.
  if (!options.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.resolve({ ok: false, statusCode: null, error: refusedAddress(host, host) });
  }
  const body = Buffer.from(target.payload, "utf8");
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": body.length,
          "user-agent": "Floodgate-Webhooks/1",
          ...signatureHeaders(target),
        },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
      },
      (res) => {
        res.resume(); // the body is not read, only drained so the socket can be reused
        const statusCode = res.statusCode ?? 0;
        resolve(
          statusCode >= 200 && statusCode < 300
            ? { ok: true, statusCode }
            : { ok: false, statusCode, error: `HTTP ${statusCode}` },
        );
      },
    );
    req.on("error", (error) =>
      resolve({
        ok: false,
        statusCode: null,
        error:
          error.name === "AbortError" || error.name === "TimeoutError"
            ? `no answer in ${options.timeoutMs} ms`
            : error.message,
      }),
    );
    req.end(body);
  });
}
