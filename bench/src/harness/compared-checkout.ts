// Another checkout of this repository that a bench runs beside this one (`--compare-checkout DIR`: payments'
// saturation comparison, the flash sale's rounds): what makes a folder one, and the commit it is at. The
// system is started from it with node (`apps/cli/src/start-command.ts`, what its `./floodgate start` runs), so
// it needs its own dependencies installed.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./child-service.ts";

const START_COMMAND = "apps/cli/src/start-command.ts";

/** This checkout keeps at least this share of the compared checkout's figure (payments' accepted/s, the flash
 * sale's joins answered/s): within the few percent a figure spreads over one run on this shared machine. */
export const COMPARED_CHECKOUT_GOAL = 0.95;

const git = (checkout: string, ...args: string[]) =>
  execFileSync("git", ["-C", checkout, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();

const packageName = (root: string): string | null => {
  try {
    const name = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).name;
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
};

/** The built files the checkout's packages export with no source to fall back on (the checkout SDK's and
 * @floodgate/node's dist/, which its `./floodgate start` builds first), as paths inside the checkout. */
function builtExports(root: string): string[] {
  const packages = path.join(root, "packages");
  if (!existsSync(packages)) return [];
  return readdirSync(packages).flatMap((name) => {
    try {
      const manifest = JSON.parse(readFileSync(path.join(packages, name, "package.json"), "utf8"));
      const main = manifest.exports?.["."];
      const target = typeof main === "string" ? main : main?.default;
      return typeof target === "string" && target.startsWith("./dist/")
        ? [path.posix.join("packages", name, target)]
        : [];
    } catch {
      return [];
    }
  });
}

/** Why `checkout` cannot be compared (a sentence naming `option` and the folder), or null when it can. */
export function comparedCheckoutProblem(checkout: string, option = "--compare-checkout"): string | null {
  const root = path.resolve(checkout);
  const problem = (why: string) => `${option} ${checkout}: ${why}`;
  if (!existsSync(root) || !statSync(root).isDirectory()) return problem("no such directory");
  let topLevel: string;
  try {
    topLevel = git(root, "rev-parse", "--show-toplevel");
  } catch {
    return problem(
      "not a git checkout (give a checkout of this repository, e.g. `git worktree add ../before <commit>`)",
    );
  }
  if (realpathSync(topLevel) !== realpathSync(root))
    return problem(`a folder inside the checkout ${topLevel}, not its top (give ${topLevel})`);
  if (packageName(root) !== packageName(REPO_ROOT) || !existsSync(path.join(root, START_COMMAND)))
    return problem(`not a checkout of this repository (no ${START_COMMAND}, or another package.json name)`);
  if (!existsSync(path.join(root, "node_modules")))
    return problem("node_modules is missing there (run `pnpm install --frozen-lockfile` in it first)");
  const unbuilt = builtExports(root).filter((file) => !existsSync(path.join(root, file)));
  if (unbuilt.length > 0)
    return problem(
      `${unbuilt.join(", ")} not built there (its \`./floodgate start\` builds them; or run \`pnpm exec turbo run build --only --filter=@floodgate/checkout-sdk --filter=@floodgate/node\` in it)`,
    );
  return null;
}

/** The checkout's absolute path; throws the problem when it cannot be compared. */
export function checkComparedCheckout(checkout: string): string {
  const problem = comparedCheckoutProblem(checkout);
  if (problem !== null) throw new Error(problem);
  return path.resolve(checkout);
}

/** The commit a checkout is at, with "+dirty" when it has uncommitted changes (what the comparison measured). */
export function checkoutCommit(checkout: string): string {
  const dirty = git(checkout, "status", "--porcelain", "--untracked-files=no") !== "";
  return `${git(checkout, "rev-parse", "--short", "HEAD")}${dirty ? "+dirty" : ""}`;
}

/** Whether `checkout` is this checkout itself (an A/A comparison: the ratio then shows the method's spread). */
export const isThisCheckout = (checkout: string): boolean =>
  realpathSync(path.resolve(checkout)) === realpathSync(REPO_ROOT);
