// Every name the test hosts use carries the owner's pid, so a run removes what a crashed run left (its owner is
// gone) and never what a run going on beside it made. The shapes are exact (ownerOf recognises only names made
// here: a stranger's `fgh-test.txt` is left alone). Interface names must fit Linux's 15 characters, so links
// carry the pid in base 36; namespaces and folders, in decimal.
export interface OwnedNames {
  namespace(host: string): string;
  bridge: string;
  /** The root side of host `index`'s veth (a bridge port: down partitions the host). */
  rootLink(index: number): string;
  /** The host side, before it is moved into its namespace and renamed eth0. */
  peerLink(index: number): string;
  /** The prefix of a temporary folder (mkdtemp adds six characters) under os.tmpdir(). */
  folder(role: string): string;
}

export function ownedNames(pid: number = process.pid): OwnedNames {
  const tag = pid.toString(36);
  return {
    namespace: (host) => `floodgate-host-${pid}-${host}`,
    bridge: `fgh-${tag}-b`,
    rootLink: (index) => `fgh-${tag}-h${index}`,
    peerLink: (index) => `fgh-${tag}-n${index}`,
    folder: (role) => `floodgate-host-${pid}-${role}-`,
  };
}

const SHAPES: { pattern: RegExp; radix: number }[] = [
  { pattern: /^floodgate-host-(\d+)-[A-Za-z0-9-]+$/, radix: 10 },
  { pattern: /^fgh-([0-9a-z]{1,6})-(?:b|bp|h\d+|n\d+)$/, radix: 36 },
];

/** The owner's pid in a name made by ownedNames, or null for a name that is not ours. */
export function ownerOf(name: string): number | null {
  for (const { pattern, radix } of SHAPES) {
    const match = pattern.exec(name);
    if (!match) continue;
    const pid = Number.parseInt(match[1]!, radix);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  }
  return null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
