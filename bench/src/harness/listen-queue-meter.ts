// Connection attempts the kernel dropped because a listener's accept queue was full, over a phase. A flash crowd
// opens thousands of WebSockets within a second; past net.core.somaxconn the kernel drops each further SYN and
// the client sends it again 1, 3 and 7 s after the first (apps/intake/src/listen-backlog.ts). A join connection
// caught in that waits seconds for nothing, so a sale's joins/s moves with how many were dropped and when, not
// only with what the intake spends on each join: results carry the count so a reader can tell the two apart.
// The counters are the machine's (every listener), read from /proc/net/netstat; during a sale the intake is the
// one listener taking a crowd. Linux only: elsewhere the meter reports null.
import { readFileSync } from "node:fs";
import { INTAKE_LISTEN_BACKLOG } from "@floodgate/config";

export interface ListenQueueDrops {
  /** net.core.somaxconn: the longest accept queue a listener gets, whatever it asks for. */
  somaxconn: number | null;
  /** SYNs dropped because an accept queue was full (TcpExt ListenOverflows): a SYN sent again and dropped
   * again counts again, so this counts attempts, not clients. */
  overflows: number;
  /** SYNs and SYN-ACKs the machine sent again (TcpExt TCPSynRetrans), most of them for dropped SYNs. */
  synRetransmits: number;
}

type Counters = Record<string, number>;

/** TcpExt's counters by name: /proc/net/netstat holds a line of names, then a line of values. */
export function parseTcpExt(netstat: string): Counters {
  const lines = netstat.split("\n").filter((line) => line.startsWith("TcpExt:"));
  const names = lines[0]?.split(/\s+/).slice(1) ?? [];
  const values = lines[1]?.split(/\s+/).slice(1) ?? [];
  const counters: Counters = {};
  names.forEach((name, i) => {
    counters[name] = Number(values[i] ?? Number.NaN);
  });
  return counters;
}

function readCounters(): Counters | null {
  try {
    return parseTcpExt(readFileSync("/proc/net/netstat", "utf8"));
  } catch {
    return null;
  }
}

function readSomaxconn(): number | null {
  try {
    const value = Number.parseInt(readFileSync("/proc/sys/net/core/somaxconn", "utf8"), 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** Starts counting; stop() answers the drops since, or null where /proc/net/netstat cannot be read. */
export function startListenQueueMeter(): { stop(): ListenQueueDrops | null } {
  const before = readCounters();
  return {
    stop() {
      const after = readCounters();
      if (before === null || after === null) return null;
      const grown = (name: string) => Math.max(0, (after[name] ?? 0) - (before[name] ?? 0));
      return {
        somaxconn: readSomaxconn(),
        overflows: grown("ListenOverflows"),
        synRetransmits: grown("TCPSynRetrans"),
      };
    },
  };
}

/** One line for the summary. */
export function describeListenQueueDrops(drops: ListenQueueDrops | null | undefined): string {
  if (drops === null || drops === undefined) return "not measured (no /proc/net/netstat)";
  const cap = drops.somaxconn === null ? "" : ` (net.core.somaxconn ${drops.somaxconn})`;
  if (drops.overflows === 0) return `no SYN dropped by a full accept queue${cap}`;
  const advice =
    drops.somaxconn !== null && drops.somaxconn < INTAKE_LISTEN_BACKLOG
      ? `; to measure the server alone, raise it to the intake's ${INTAKE_LISTEN_BACKLOG} (sysctl -w net.core.somaxconn=${INTAKE_LISTEN_BACKLOG})`
      : "";
  return (
    `${drops.overflows.toLocaleString("en-US")} SYNs dropped by a full accept queue${cap}, ` +
    `${drops.synRetransmits.toLocaleString("en-US")} sent again (1, 3 and 7 s after a client's first)${advice}`
  );
}
