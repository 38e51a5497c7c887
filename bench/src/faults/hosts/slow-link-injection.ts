// The slow, lossy link on a host for `seconds`, by the mechanism this machine has (slow-link-mechanism.ts), then
// healthy again; the notes name the mechanism and, for the emulation, what its counters saw.

import { EmulatedSlowLink } from "./emulated-slow-link.ts";
import { FAILED_NOTE } from "./failed-note.ts";
import { describeSlowLink, type SlowLinkMechanism } from "./slow-link-mechanism.ts";
import type { LinkImpairment, TestHost, TestNetwork } from "./test-network.ts";

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const percent = (part: number, whole: number) =>
  whole === 0 ? "-" : `${((100 * part) / whole).toFixed(2)} %`;

export async function slowLinkFor(
  network: TestNetwork,
  host: TestHost,
  impairment: LinkImpairment,
  mechanism: SlowLinkMechanism,
  seconds: number,
): Promise<string[]> {
  const made = `${host.namespace}'s link for ${seconds} s: ${describeSlowLink(mechanism, impairment)}`;
  if (mechanism.kind === "netem") {
    network.impair(host, impairment);
    try {
      await sleep(seconds);
    } finally {
      network.restore(host);
    }
    return [made];
  }
  const link = await EmulatedSlowLink.start(host, impairment, mechanism);
  let counts: Awaited<ReturnType<EmulatedSlowLink["stop"]>>;
  try {
    await sleep(seconds);
  } finally {
    counts = await link.stop();
  }
  const { seen, dropped, delayed } = counts;
  return [
    made,
    `dropped ${dropped.in} of ${seen.in} packets to the host (${percent(dropped.in, seen.in)}) and ${dropped.out} of ${seen.out} from it (${percent(dropped.out, seen.out)}); the delay program held ${delayed ?? "?"} packets (more than the rules count: a large GSO packet, one for the rules as for netem, reaches the queue in segments)`,
    ...(counts.delayRan
      ? []
      : [`${FAILED_NOTE} the NFQUEUE delay program had exited before the end: the link was cut, not slowed`]),
  ];
}
