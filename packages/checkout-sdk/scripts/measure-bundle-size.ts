// Prints the size of the built browser bundle: `node packages/checkout-sdk/scripts/measure-bundle-size.ts`
// (after the build). test/bundle-size.test.ts holds it under 6 KB with the same function.
import { measureBundleSize } from "./browser-bundle.ts";

const { minifiedBytes, gzippedBytes } = await measureBundleSize();
console.log(
  `@floodgate/checkout-sdk: ${minifiedBytes} bytes minified, ${gzippedBytes} bytes minified + gzipped`,
);
