// A value as a route's response schema lets it out: only the properties the schema names, at every depth, as
// Fastify's serializer does. A socket message then carries exactly what the GET route answers, and nothing
// a read function happens to carry besides (a payment view's `kind`, say).
interface ResponseSchema {
  type?: unknown;
  properties?: Readonly<Record<string, ResponseSchema>>;
  items?: ResponseSchema;
}

export function projectOnto(value: unknown, schema: ResponseSchema): unknown {
  if (Array.isArray(value)) {
    const { items } = schema;
    return items ? value.map((item) => projectOnto(item, items)) : value;
  }
  if (value === null || typeof value !== "object" || schema.properties === undefined) return value;
  const source = value as Record<string, unknown>;
  const projected: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (source[name] !== undefined) projected[name] = projectOnto(source[name], property);
  }
  return projected;
}
