// Headless Chromium for the browser tests (the SDK's checkout page, the demo store): CHROMIUM_PATH, else the usual
// system locations (Debian's package in CI). Its own entry point, so tests without a browser never load playwright. A missing browser fails the file with a message saying how to get one, never a skip.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const SYSTEM_LOCATIONS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
const HOW_TO_GET_ONE =
  "The browser tests need Chromium: `./floodgate test` installs it, or set CHROMIUM_PATH to a Chromium or Chrome binary.";

export function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured))
      throw new Error(`CHROMIUM_PATH=${configured} does not exist. ${HOW_TO_GET_ONE}`);
    return configured;
  }
  const found = SYSTEM_LOCATIONS.find((path) => existsSync(path));
  if (!found) throw new Error(`No Chromium at ${SYSTEM_LOCATIONS.join(", ")}. ${HOW_TO_GET_ONE}`);
  return found;
}

/** The flags keep a headless Chromium off the network this machine does not have (no background fetches). */
export function launchChromium(executablePath: string = chromiumPath()): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
