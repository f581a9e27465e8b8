/**
 * What Prisma returns of `row` for a `select`: the fields set to true, relations by their own
 * nested `select`. In-memory stand-ins for a table use it so that a query that forgets to select
 * a field gets no value for it, as it would from the database.
 */
export function selected(row: Record<string, unknown>, select: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, wanted] of Object.entries(select)) {
    if (wanted === true) out[name] = row[name];
    else if (wanted && typeof wanted === 'object' && 'select' in wanted) {
      const value = row[name];
      const nested = (wanted as { select: Record<string, unknown> }).select;
      out[name] = Array.isArray(value)
        ? value.map((v: Record<string, unknown>) => selected(v, nested))
        : value && selected(value as Record<string, unknown>, nested);
    }
  }
  return out;
}
