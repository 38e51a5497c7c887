// One attempt's AbortSignal, from two sources: the caller's `signal` (the call is cancelled: fetch closes the
// request and its socket, and nothing is retried) and the per-request timeout (a connection that hangs without
// an answer: the attempt fails like a dropped connection and is retried with the same Idempotency-Key).
// Built by hand rather than with AbortSignal.any/timeout: Node 20.0-20.2 and older Safari lack them.

export interface AttemptSignal {
  signal: AbortSignal;
  /** The timeout, not the caller, ended it. */
  timedOut(): boolean;
  /** The attempt is over: the timer and the listener go, so neither keeps a process alive. */
  done(): void;
}

export function attemptSignal(timeoutMs: number, outer: AbortSignal | undefined): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(outer?.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer in ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}
