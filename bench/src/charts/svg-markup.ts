// SVG as plain strings: one element builder and the escaping it needs. Nothing here knows about charts.

export const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export type Attributes = Record<string, string | number | undefined>;

/** `<name a="1">children</name>`, or self-closing without children; undefined attributes are left out. */
export function element(
  name: string,
  attributes: Attributes,
  children: string | readonly string[] = [],
): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeXml(typeof value === "number" ? round(value) : value)}"`)
    .join("");
  const inner = typeof children === "string" ? children : children.join("");
  return inner === "" ? `<${name}${attrs}/>` : `<${name}${attrs}>${inner}</${name}>`;
}

/** Text drawn as <text>, so GitHub renders it and a reader can select it. */
export function text(x: number, y: number, content: string, attributes: Attributes = {}): string {
  return element("text", { x, y, ...attributes }, escapeXml(content));
}

/** Coordinates to 0.1 px: enough for 800 px wide, and the file stays small. */
export const round = (value: number): string => String(Math.round(value * 10) / 10);
