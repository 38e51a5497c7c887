// A probe's sockets are bounded: two cores are shared with the system under test, so at most `parallel` at once.
export async function eachLimited<T>(
  items: readonly T[],
  parallel: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, lane));
}
