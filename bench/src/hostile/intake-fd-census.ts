// What each intake process holds open, from /proc: every file descriptor; its client connections (TCP sockets
// whose local port is the intake's); and of those the orphaned ones, whose client end is gone or closing (no
// ESTABLISHED socket at the other end on this machine). The fd count is what the issue asks to come back; an
// orphaned socket is the leak itself (a refused upgrade's socket sitting in CLOSE-WAIT), told apart from a live
// keep-alive connection the caller's own client pool holds.
import { readdir, readFile, readlink } from "node:fs/promises";

export interface FdCensus {
  pid: number;
  fds: number;
  clientSockets: number;
  /** Client sockets whose peer is not an ESTABLISHED socket: the server holds on to a connection nobody has. */
  orphanedSockets: number;
}

const ESTABLISHED = "01";
const LISTEN = "0A";

interface TcpEntry {
  local: string;
  remote: string;
  state: string;
  inode: string;
}

async function tcpEntries(pid: number): Promise<TcpEntry[]> {
  const entries: TcpEntry[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const [, local, remote, state, , , , , , inode] = line.trim().split(/\s+/);
      if (local && remote && state && inode) entries.push({ local, remote, state, inode });
    }
  }
  return entries;
}

export async function fdCensus(pid: number, intakePort: number): Promise<FdCensus> {
  const names = await readdir(`/proc/${pid}/fd`);
  const inodes = new Set<string>();
  for (const name of names) {
    const target = await readlink(`/proc/${pid}/fd/${name}`).catch(() => "");
    const socket = /^socket:\[(\d+)\]$/.exec(target);
    if (socket) inodes.add(socket[1]!);
  }
  const portHex = `:${intakePort.toString(16).toUpperCase().padStart(4, "0")}`;
  // The network namespace's whole table: the client end of a loopback connection is in it too.
  const entries = await tcpEntries(pid);
  // The peer is the entry with this connection's two ends swapped. Matched on both ends, not on its local
  // address alone: an earlier connection from the same ephemeral port may still be listed (TIME_WAIT), and
  // on a busy machine it made a live connection look orphaned.
  const established = new Set(
    entries.filter((e) => e.state === ESTABLISHED).map((e) => `${e.local} ${e.remote}`),
  );
  let clientSockets = 0;
  let orphanedSockets = 0;
  for (const entry of entries) {
    if (entry.state === LISTEN || !entry.local.endsWith(portHex) || !inodes.has(entry.inode)) continue;
    clientSockets++;
    if (!established.has(`${entry.remote} ${entry.local}`)) orphanedSockets++;
  }
  return { pid, fds: names.length, clientSockets, orphanedSockets };
}

/** True while /proc/<pid> exists (a pid reused by another process would need a start-time check). */
export async function processAlive(pid: number): Promise<boolean> {
  return readFile(`/proc/${pid}/stat`, "utf8").then(
    () => true,
    () => false,
  );
}
