/** Polls until `condition` holds; the deadline is generous because tests assert outcomes, never durations. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 45_000,
  describe?: () => string | Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const detail = describe ? `\n${await describe()}` : "";
      throw new Error(`timed out waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
