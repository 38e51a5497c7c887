// The WebSocket address of a ticket, from the API's base URL: same host and path prefix, ws: for http: and wss:
// for https: (a page on https may only open wss:).

export function ticketSocketUrl(baseUrl: string, roomId: string, ticketId: string): string {
  const path = `/v1/rooms/${encodeURIComponent(roomId)}/tickets/${encodeURIComponent(ticketId)}/ws`;
  // A relative baseUrl ("" or "/api" on the shop's own origin) resolves against the page, as fetch does.
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const url = new URL(baseUrl + path, page);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}
