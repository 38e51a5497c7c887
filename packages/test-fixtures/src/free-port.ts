// A local TCP port nothing listens on right now: bound to port 0, read, released. Another process may take it
// before the caller does; the fixtures that use it start their server at once.
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
