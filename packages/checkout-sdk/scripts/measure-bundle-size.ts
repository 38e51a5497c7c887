// Prints the SDK's size as a browser downloads it: `node packages/checkout-sdk/scripts/measure-bundle-size.ts`.
// test/bundle-size.test.ts holds it under 6 KB with the same function.
import { fileURLToPath } from "node:url";
import { measureBundleSize } from "../src/build/browser-bundle.ts";

export { buildBrowserBundle, measureBundleSize } from "../src/build/browser-bundle.ts";

// Run as a script prints; imported (by the test) it only exports.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { minifiedBytes, gzippedBytes } = await measureBundleSize();
  console.log(
    `@floodgate/checkout-sdk: ${minifiedBytes} bytes minified, ${gzippedBytes} bytes minified + gzipped`,
  );
}
