// Waits for something the code under test does on its own time (a socket message, a poll), with a bound so a
// test that will never see it fails saying what it was waiting for.

export async function eventually<T>(
  read: () => T | undefined | null | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
