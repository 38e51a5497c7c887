// The real fetch, with every call written down (method, path, the headers the SDK sets, the answer and when it
// came), and optionally a network failure injected AFTER the server answered: the request reached the server
// and did its work, but the page never hears of it, as when a connection drops on the way back.

export interface RecordedCall {
  method: string;
  path: string;
  idempotencyKey: string | null;
  admissionToken: string | null;
  authorization: string | null;
  /** The request's body as sent, or null. */
  sent: string | null;
  /** 0 when the answer was dropped by the injected failure (the server's status is in `droppedStatus`). */
  status: number;
  droppedStatus?: number;
  retryAfter: string | null;
  body: string;
  /** performance.now() when the request was sent and when its answer arrived. */
  sentAt: number;
  answeredAt: number;
}

export function recordingFetch(options: { dropAnswer?: (call: RecordedCall) => boolean } = {}) {
  const calls: RecordedCall[] = [];
  const recording = async (url: string, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const sentAt = performance.now();
    const response = await fetch(url, init);
    const body = await response.clone().text();
    const call: RecordedCall = {
      method: init?.method ?? "GET",
      path: new URL(url).pathname,
      idempotencyKey: headers.get("idempotency-key"),
      admissionToken: headers.get("admission-token"),
      authorization: headers.get("authorization"),
      sent: typeof init?.body === "string" ? init.body : null,
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body,
      sentAt,
      answeredAt: performance.now(),
    };
    calls.push(call);
    if (options.dropAnswer?.(call)) {
      call.droppedStatus = call.status;
      call.status = 0;
      throw new TypeError("fetch failed (injected after the server answered)");
    }
    return response;
  };
  return {
    fetch: recording,
    calls,
    to: (method: string, path: RegExp) =>
      calls.filter((call) => call.method === method && path.test(call.path)),
  };
}
