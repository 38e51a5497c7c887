// Work that must happen even when the bench is interrupted (Ctrl-C): run by bench-command.ts after the child
// processes are stopped. A scenario registers a cleanup when it creates something and unregisters it after
// cleaning up normally.
const cleanups = new Set<() => Promise<unknown>>();

export function registerCleanup(cleanup: () => Promise<unknown>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
  cleanups.clear();
}
