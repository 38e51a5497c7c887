// What the chart tests read out of an SVG without a browser or an XML library: whether its tags balance
// (well-formed enough for GitHub's renderer), its texts, and the points of a named line series.

/** Throws naming the first tag that does not close, closes the wrong one, or a stray `<` or `&`. */
export function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const match of svg.matchAll(tag)) {
    checkText(svg.slice(last, match.index));
    last = match.index + match[0].length;
    const [, closing, name = "", , selfClosing] = match;
    if (selfClosing) continue;
    if (!closing) stack.push(name);
    else if (stack.pop() !== name) throw new Error(`</${name}> closes the wrong element at ${match.index}`);
  }
  checkText(svg.slice(last));
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(", ")}`);
}

function checkText(between: string): void {
  if (between.includes("<")) throw new Error(`a stray < or a malformed tag: ${between.slice(0, 80)}`);
  if (/&(?!amp;|lt;|gt;|quot;|#\d+;)/.test(between))
    throw new Error(`an unescaped &: ${between.slice(0, 80)}`);
}

const unescapeXml = (text: string): string =>
  text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");

/** Every <text> element's content, unescaped. */
export function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescapeXml(m[1] ?? ""));
}

/** The pixel points of the line series named `name` (its path's M/L commands), in drawing order. */
export function linePoints(svg: string, name: string): { x: number; y: number }[] {
  const escaped = name
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  const group = svg.split(`data-series="${escaped}"`)[1];
  const d = group?.match(/<path d="([^"]*)"/)?.[1];
  if (d === undefined) throw new Error(`no line series named ${name}`);
  return [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
}

/** The heights of the bars of the bar series named `name`, left to right. */
export function barHeights(svg: string, name: string): number[] {
  const group = [...svg.matchAll(/<g class="series" data-series="([^"]*)" fill="[^"]*">(.*?)<\/g>/g)].find(
    (m) => m[1] === name,
  )?.[2];
  if (group === undefined) throw new Error(`no bar series named ${name}`);
  return [...group.matchAll(/<rect[^>]* height="([\d.]+)"/g)].map((m) => Number(m[1]));
}
