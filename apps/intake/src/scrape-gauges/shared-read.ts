/**
 * One read shared by every gauge collected in the same scrape (prom-client collects a registry's metrics at
 * once): the first collect starts it, the others wait for it, and the next scrape reads afresh.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}
