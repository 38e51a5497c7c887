// 10 MB bodies, declared (Content-Length) and streamed (chunked), with and without credentials: the intake's
// body limit is 16 KB, so each must be answered 413 (or 401 before reading the body) quickly, and the
// connection must not hang while the client is still sending. Writing stops once the answer is in.
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { ProbeTally } from "./probe-tally.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

const TEN_MB = 10 * 1024 * 1024;
const PART = 64 * 1024;
const REPEATS = 10;
const PARALLEL = 4;
/** An answer slower than this counts as a hung connection (a 413 needs no body read). */
const HUNG_AFTER_MS = 10_000;

/** A JSON-looking 10 MB body in 64 KB parts: `{"userId":"xxxx...` never closed. */
function* declaredBody(): Generator<Buffer> {
  const part = Buffer.alloc(PART, "x");
  yield Buffer.from('{"userId":"');
  for (let sent = 11; sent < TEN_MB; sent += PART)
    yield sent + PART <= TEN_MB ? part : part.subarray(0, TEN_MB - sent);
}

function* chunkedBody(): Generator<Buffer> {
  const part = Buffer.alloc(PART, "x");
  const framed = Buffer.concat([Buffer.from(`${PART.toString(16)}\r\n`), part, Buffer.from("\r\n")]);
  for (let sent = 0; sent < TEN_MB; sent += PART) yield framed;
  yield Buffer.from("0\r\n\r\n");
}

export async function runLargeBodyProbe(t: HostileTarget): Promise<ProbeTally> {
  const tally = new ProbeTally("10 MB bodies");
  const variants = [
    { name: "Content-Length 10 MB (server key)", auth: t.serverAuthorization, chunked: false },
    { name: "chunked 10 MB (server key)", auth: t.serverAuthorization, chunked: true },
    { name: "Content-Length 10 MB (customer token)", auth: t.customerAuthorization, chunked: false },
    { name: "Content-Length 10 MB (no credentials)", auth: null, chunked: false },
    { name: "chunked 10 MB (no credentials)", auth: null, chunked: true },
  ];
  const cases = variants.flatMap((variant) => Array.from({ length: REPEATS }, () => variant));
  const times: number[] = [];
  let resets = 0;
  await eachLimited(cases, PARALLEL, async ({ name, auth, chunked }) => {
    const headers: [string, string][] = [
      ["Host", `${t.host}:${t.port}`],
      ["Content-Type", "application/json"],
      chunked ? ["Transfer-Encoding", "chunked"] : ["Content-Length", String(TEN_MB)],
    ];
    if (auth !== null) headers.push(["Authorization", auth]);
    const answer = await rawExchange({
      host: t.host,
      port: t.port,
      head: requestHead("POST", "/v1/payments", headers),
      body: chunked ? chunkedBody() : declaredBody(),
      timeoutMs: HUNG_AFTER_MS,
    });
    times.push(answer.ms);
    if (answer.status === null && (answer.error === "EPIPE" || answer.error === "ECONNRESET")) resets++;
    tally.add(answer, `POST /v1/payments ${name}`, auth ?? "");
  });
  times.sort((a, b) => a - b);
  tally.note(
    `answer times: median ${Math.round(times[Math.floor(times.length / 2)] ?? 0)} ms, slowest ${Math.round(times.at(-1) ?? 0)} ms (hung after ${HUNG_AFTER_MS / 1000} s)`,
  );
  if (resets > 0) {
    tally.note(
      `${resets} ended in EPIPE/ECONNRESET with no answer read: the intake answers 413 and closes at once with ` +
        "the body unread (no lingering close), so the connection is reset under a client still sending, and a " +
        "client whose failed write destroys the socket (Node's) never reads the 413",
    );
  }
  return tally;
}
