// The admin calls scenarios make around a load (create a coupon or a product, read it back): fetch with the
// run's bearer key; any answer but 2xx is an error naming the call.
export async function adminRequest(
  baseUrl: string,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}
