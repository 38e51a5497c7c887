// The WebSocket address of an API path: same host and path prefix as the base URL, ws: for http: and wss: for
// https: (a page on https may only open wss:).

export function socketUrl(baseUrl: string, path: string): string {
  // A relative baseUrl ("" or "/api" on the shop's own origin) resolves against the page, as fetch does.
  const url = new URL(baseUrl + path, (globalThis as { location?: { href: string } }).location?.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}
