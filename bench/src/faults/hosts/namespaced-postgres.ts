// A Postgres server of its own inside a test host (a shard's or the global database's host): initdb and pg_ctl
// run as the `postgres` user, the server listens on the host's address only, trusts the private bridge, and its
// data directory sits in a folder the network's leftover cleanup recognises.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run, runQuietly } from "./host-command.ts";
import { ownedNames } from "./host-names.ts";
import { HostsUnavailableError } from "./host-preconditions.ts";
import type { TestHost } from "./test-network.ts";

export interface NamespacedPostgres {
  /** The server's URL with the maintenance database (`/postgres`); callers set their own database names. */
  url: string;
  host: TestHost;
  stop(): void;
}

const PORT = 5432;

/** The directory of initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(path.join(root, version, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new HostsUnavailableError([
      "Postgres server binaries (initdb, pg_ctl): none under /usr/lib/postgresql/<version>/bin, and PG_BIN is not set",
    ]);
  }
  return path.join(root, versions[0]!, "bin");
}

function postgresUser(): { uid: number; gid: number } {
  try {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new HostsUnavailableError(["a `postgres` user (Postgres refuses to run as root)"]);
  }
}

export function startNamespacedPostgres(host: TestHost): NamespacedPostgres {
  const bin = postgresBin();
  const owner = postgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), ownedNames().folder("pg")));
  chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, "data");
  const asPostgres = (tool: string, args: string[]) => [
    "-u",
    "postgres",
    "--",
    path.join(bin, tool),
    ...args,
  ];
  const stop = () => {
    runQuietly("runuser", asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run(
      "runuser",
      asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]),
    );
    // Trusted from any address: the server is reachable only on the test hosts' private bridge.
    writeFileSync(path.join(data, "pg_hba.conf"), "local all all trust\nhost all all 0.0.0.0/0 trust\n");
    const options = `-c listen_addresses=${host.address} -p ${PORT} -c unix_socket_directories=${dir}`;
    const { file, args } = host.command(
      "runuser",
      asPostgres("pg_ctl", [
        "-D",
        data,
        "-l",
        path.join(dir, "server.log"),
        "-o",
        options,
        "-w",
        "-t",
        "60",
        "start",
      ]),
    );
    run(file, args);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: `postgres://postgres@${host.address}:${PORT}/postgres`, host, stop };
}
