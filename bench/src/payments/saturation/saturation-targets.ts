// The targets of the saturation comparison, started for the run and stopped after it: Floodgate's intake alone
// (WORKERS=0, one intake process, no backpressure: nothing drains, so the backlog must not refuse) with AUTH=off
// and a second one with auth on, whose 5,000 shoppers' customer tokens are minted before any stage and handed
// to wrk in a file; then the --peer processes on the bench Redis.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { childPids } from "../../faults/process-tree.ts";
import { checkComparedCheckout, checkoutCommit } from "../../harness/compared-checkout.ts";
import { type FreshFloodgate, freshFloodgate, type RecordedSystem } from "../../harness/fresh-floodgate.ts";
import { registerCleanup } from "../../harness/interrupt-cleanup.ts";
import { benchUserId } from "../../harness/payment-requests.ts";
import { log } from "../../harness/progress-line.ts";
import type { ServiceSettings } from "../../harness/service-settings.ts";
import type { ScenarioContext } from "../../scenario.ts";
import { bullmqJobKeys } from "../peers/bullmq-peer.ts";
import type { PeerName } from "../peers/peer-names.ts";
import { type PeerProcess, startPeer } from "../peers/peer-process.ts";
import type { SaturationTarget } from "./saturation-stage.ts";
import { floodgateStageKeys } from "./stage-keys.ts";

/**
 * What each Floodgate of the comparison runs with beside the bench's usual settings. The payments' per-user
 * limit stays on, checked on every request as by default (the same bucket read and written in the enqueue
 * script), with a quota the load cannot reach: wrk's 5,000 shoppers at 40,000/s pay 8 times a second each on
 * average, and by chance some past the default's 10/s with a burst of 20, which a shopper never does (a run
 * at 42,000/s answered 26-53 of a stage's 400,000 payments 429).
 */
export const INTAKE_ALONE = {
  INTAKE_PROCESSES: "1",
  BACKPRESSURE_SECONDS: "0",
  RATE_LIMITS: "*.ip=off,payments.user=1000/s:1000",
};

export interface SaturationTargets {
  targets: SaturationTarget[];
  /** Each Floodgate's environment (secrets masked), by target key. */
  environments: Record<string, unknown>;
  services: ServiceSettings | null;
  redisUrl: string;
  close(): Promise<void>;
}

function floodgateTarget(
  key: "floodgate" | "floodgateAuthOn" | "floodgateCompared",
  label: string,
  floodgate: FreshFloodgate,
  tokensFile: string | null,
): SaturationTarget {
  const { system } = floodgate;
  return {
    key,
    label,
    baseUrl: system.baseUrl,
    tokensFile,
    pids: () => (system.pid === null ? [] : childPids(system.pid, "intake")),
    stageKeys: () => floodgateStageKeys(system.config.redisPrefix),
  };
}

export async function startSaturationTargets(
  context: ScenarioContext,
  options: { users: number; peers: readonly PeerName[]; compareCheckout: string | null },
): Promise<SaturationTargets> {
  const comparedRoot =
    options.compareCheckout === null ? null : checkComparedCheckout(options.compareCheckout);
  const authOff = freshFloodgate(context, {
    auth: "off",
    instance: "wrk_auth_off",
    extraEnvironment: INTAKE_ALONE,
  });
  // The same intake alone from the other checkout, on databases and a Redis prefix of its own.
  const compared =
    comparedRoot === null
      ? null
      : freshFloodgate(context, {
          auth: "off",
          instance: "wrk_compared",
          extraEnvironment: INTAKE_ALONE,
          checkout: comparedRoot,
        });
  const comparedLabel = comparedRoot === null ? "" : `floodgate AUTH=off @${checkoutCommit(comparedRoot)}`;
  const authOn = freshFloodgate(context, { auth: "on", extraEnvironment: INTAKE_ALONE });
  const peers: PeerProcess[] = [];
  const tokensDirectory = mkdtempSync(path.join(tmpdir(), "floodgate-wrk-"));
  const removeTokens = async () => rmSync(tokensDirectory, { recursive: true, force: true });
  // The tokens are good for a day against this run's secret: gone on Ctrl-C too.
  const unregisterTokens = registerCleanup(removeTokens);
  const close = async () => {
    for (const peer of peers) log(`peer ${peer.name} stopped, ${await peer.close()} Redis keys removed`);
    await compared?.close();
    await authOn.close();
    await authOff.close();
    await removeTokens();
    unregisterTokens();
  };
  try {
    const recordedOff: RecordedSystem = { settings: {}, services: null };
    const recordedOn: RecordedSystem = { settings: {}, services: null };
    const recordedCompared: RecordedSystem = { settings: {}, services: null };
    await authOff.start(0, recordedOff);
    await authOn.start(0, recordedOn);
    if (compared !== null) {
      log(`starting ${comparedLabel} from ${comparedRoot}`);
      await compared.start(0, recordedCompared);
    }
    const userIds = Array.from({ length: options.users }, (_, i) => benchUserId(i));
    await authOn.system.identity.addShoppers(userIds);
    const tokensFile = path.join(tokensDirectory, "customer-tokens.txt");
    writeFileSync(
      tokensFile,
      `${userIds.map((id) => authOn.system.identity.shopperToken(id)).join("\n")}\n`,
      {
        mode: 0o600,
      },
    );
    for (const name of options.peers) {
      log(`starting peer ${name}`);
      peers.push(
        await startPeer({
          name,
          redisUrl: authOff.environment.redisUrl,
          keyPrefix: `fgpeer:${context.stamp}-${name}:`,
          logFile: context.logFile,
        }),
      );
    }
    const peerTargets: SaturationTarget[] = peers.map((peer) => ({
      key: peer.name,
      label: `peer ${peer.name}`,
      baseUrl: peer.baseUrl,
      tokensFile: null,
      pids: () => [peer.pid],
      // The raw peer's one stream is capped (MAXLEN ~ 100000); BullMQ's jobs are keys of their own.
      stageKeys: (stageKeyPrefix: string) =>
        peer.name === "bullmq" ? bullmqJobKeys(peer.keyPrefix, stageKeyPrefix) : null,
    }));
    return {
      targets: [
        floodgateTarget("floodgate", "floodgate AUTH=off", authOff, null),
        floodgateTarget("floodgateAuthOn", "floodgate auth on", authOn, tokensFile),
        ...(compared === null ? [] : [floodgateTarget("floodgateCompared", comparedLabel, compared, null)]),
        ...peerTargets,
      ],
      environments: {
        floodgate: recordedOff.settings.systemEnvironment,
        floodgateAuthOn: recordedOn.settings.systemEnvironment,
        ...(compared === null
          ? {}
          : {
              floodgateCompared: {
                checkout: comparedRoot,
                commit: checkoutCommit(comparedRoot!),
                ...(recordedCompared.settings.systemEnvironment as Record<string, unknown>),
              },
            }),
      },
      services: recordedOff.services,
      redisUrl: authOff.environment.redisUrl,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
