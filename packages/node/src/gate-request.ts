// What the gate reads of a request, whichever server it runs in: the admission it may carry (the gate's
// cookie, Authorization: Bearer, or the intake's own Admission-Token header), whether it is a page, and where a
// `return` may send the browser (a path of this origin only: never another site, so the admit route is no
// open redirect).
import type { IncomingHttpHeaders } from "node:http";

export interface GateRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}

/** The candidate admission tokens of a request, most explicit first. */
export function presentedTokens(headers: IncomingHttpHeaders, cookieName: string): string[] {
  const tokens: string[] = [];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "")?.[1];
  if (bearer !== undefined) tokens.push(bearer);
  const header = headers["admission-token"];
  if (typeof header === "string" && header !== "") tokens.push(header);
  const cookie = readCookie(headers.cookie, cookieName);
  if (cookie !== undefined && cookie !== "") tokens.push(cookie);
  return [...new Set(tokens)];
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** A browser asking for a page (it gets a redirect); anything else is an API call (it gets a problem). */
export function wantsPage(headers: IncomingHttpHeaders): boolean {
  return /\btext\/html\b/i.test(headers.accept ?? "");
}

const ORIGIN = new URL("http://gate.invalid");

/** `value` as a path of this origin, or "/" when it is anything else (another host, a scheme, a backslash). */
export function sameOriginPath(value: string | null | undefined): string {
  // "//host" and "/\host" are other hosts to a browser; control characters and backslashes have no place here.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (!value?.startsWith("/") || value.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(value)) return "/";
  let url: URL;
  try {
    url = new URL(value, ORIGIN);
  } catch {
    return "/";
  }
  return url.origin === ORIGIN.origin ? `${url.pathname}${url.search}${url.hash}` : "/";
}

/** The request's path and query as sent (relative to this origin). */
export function requestTarget(request: GateRequest): URL {
  return new URL(request.url ?? "/", ORIGIN);
}
