// Connection URLs go into start-up and migration logs; their passwords must not.

/** The URL with its password (if any) replaced by ***, for logs. */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
