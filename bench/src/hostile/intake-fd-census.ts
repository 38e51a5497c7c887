// What each intake process holds open, from /proc: every file descriptor, and of its sockets those that are
// client connections on the intake's port (accepted sockets, local port = the intake's). The first is what the
// issue asks to come back; the second says whether what stayed is a client's socket or a pool's connection.
import { readdir, readFile, readlink } from "node:fs/promises";

export interface FdCensus {
  pid: number;
  fds: number;
  /** Established (or closing) TCP sockets whose local port is the intake's: connections from clients. */
  clientSockets: number;
}

export async function fdCensus(pid: number, intakePort: number): Promise<FdCensus> {
  const names = await readdir(`/proc/${pid}/fd`);
  const inodes = new Set<string>();
  for (const name of names) {
    const target = await readlink(`/proc/${pid}/fd/${name}`).catch(() => "");
    const socket = /^socket:\[(\d+)\]$/.exec(target);
    if (socket) inodes.add(socket[1]!);
  }
  const portHex = intakePort.toString(16).toUpperCase().padStart(4, "0");
  let clientSockets = 0;
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT"; st 0A is LISTEN (the listening socket is not a client).
      const [, local, , state, , , , , , inode] = fields;
      if (!local || !inode || state === "0A") continue;
      if (local.endsWith(`:${portHex}`) && inodes.has(inode)) clientSockets++;
    }
  }
  return { pid, fds: names.length, clientSockets };
}

/** True while /proc/<pid> exists (a pid reused by another process would need a start-time check). */
export async function processAlive(pid: number): Promise<boolean> {
  return readFile(`/proc/${pid}/stat`, "utf8").then(
    () => true,
    () => false,
  );
}

/** Node processes whose parent is `parentPid` and whose command line names `script` (the intake's server.ts). */
export async function childPids(parentPid: number, script: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // Fields after the command's closing parenthesis: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== parentPid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(script)) pids.push(Number(entry));
  }
  return pids.sort((a, b) => a - b);
}
