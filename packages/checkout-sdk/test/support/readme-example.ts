// The README's complete example, as the files it names: every ```js block there whose first line is
// `// <name>.js...` is that file, verbatim. The test runs these, so the README cannot drift from what works.
import { readFile } from "node:fs/promises";

const README = new URL("../../README.md", import.meta.url);

/** e.g. { "checkout.js": "...", "checkout-page.js": "...", "buy.js": "..." } */
export async function readmeExampleFiles(): Promise<Record<string, string>> {
  const text = await readFile(README, "utf8");
  const files: Record<string, string> = {};
  for (const [, code] of text.matchAll(/^```js\n([\s\S]*?)^```$/gm)) {
    const name = /^\/\/ ([\w-]+\.js)\b/.exec(code!)?.[1];
    if (name) files[name] = code!;
  }
  for (const name of ["checkout.js", "checkout-page.js", "buy.js"]) {
    if (!files[name]) throw new Error(`the README has no \`\`\`js block starting "// ${name}"`);
  }
  return files;
}
