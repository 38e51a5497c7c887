// Where the browser tests find Chromium: CHROMIUM_PATH, else the usual system locations. A missing browser is a
// failure that says how to get one, never a silently skipped test.
import { existsSync } from "node:fs";

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
