// The API's address, checked once when the checkout is made. A baseUrl that is no URL (the "" of a page run in
// Node, where there is no page to resolve it against) would otherwise fail every fetch the way a dropped
// connection does, be retried, and end as a connection error minutes later: it is a TypeError at once instead.

export function apiBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string") throw new TypeError(`baseUrl must be a string, not ${typeof baseUrl}`);
  const trimmed = baseUrl.replace(/\/+$/, "");
  // In a page (or a worker) a relative one ("" or "/api") resolves against it, as fetch does.
  const page = (globalThis as { location?: { href: string } }).location?.href;
  let url: URL;
  try {
    url = new URL(`${trimmed}/`, page);
  } catch {
    const hint =
      page === undefined ? ": outside a page it must be absolute, e.g. https://api.shop.example" : "";
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is not a URL${hint}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} must be http: or https:`);
  }
  return trimmed;
}
