import type { Counter } from "prom-client";

/** Sum of a counter over all its label values. */
export async function counterTotal(counter: Counter<string>): Promise<number> {
  const { values } = await counter.get();
  return values.reduce((sum, { value }) => sum + value, 0);
}
