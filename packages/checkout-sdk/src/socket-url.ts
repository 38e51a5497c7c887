// The WebSocket address of an API path: same host and path prefix as the base URL, ws: for http: and wss: for
// https: (a page on https may only open wss:). A browser cannot set headers on a WebSocket, so the bearer rides
// in the query as access_token (RFC 6750 section 2.3); the server accepts it there for its sockets only.

export function socketUrl(baseUrl: string, path: string, token?: string): string {
  // A relative baseUrl ("" or "/api" on the shop's own origin) resolves against the page, as fetch does.
  const url = new URL(baseUrl + path, (globalThis as { location?: { href: string } }).location?.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (token !== undefined) url.searchParams.set("access_token", token);
  return url.href;
}
