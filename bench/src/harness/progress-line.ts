// One status line every few seconds during long phases, so a run that is slow or stuck says so.
const PROGRESS_INTERVAL_MS = 5000;

export function log(message: string): void {
  process.stdout.write(`[bench] ${message}\n`);
}

/** Prints `render()` every 5 s until the returned function is called; render may be async (a count query). */
export function startProgress(render: () => string | Promise<string>): () => void {
  const timer = setInterval(() => {
    Promise.resolve(render()).then(log, (error: Error) => log(`progress unavailable: ${error.message}`));
  }, PROGRESS_INTERVAL_MS);
  return () => clearInterval(timer);
}

export const formatCount = (n: number): string => Math.round(n).toLocaleString("en-US");
