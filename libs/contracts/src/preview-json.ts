/**
 * A valid-JSON preview of a value that fits in `maxBytes` of JSON text: arrays keep their first
 * items, objects their first members, long strings are cut. JSON is never cut in half.
 */
export function previewJson(value: unknown, maxBytes: number): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || byteLength(text) <= maxBytes) return value;
  return shrink(value, maxBytes);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function fits(value: unknown, maxBytes: number): boolean {
  return byteLength(JSON.stringify(value) ?? "null") <= maxBytes;
}

function shrink(value: unknown, budget: number): unknown {
  if (typeof value === "string") {
    const marker = "…";
    let lo = 0;
    let hi = value.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(value.slice(0, mid) + marker, budget)) lo = mid;
      else hi = mid - 1;
    }
    return lo === 0 ? "" : value.slice(0, lo) + marker;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const remaining = budget - byteLength(JSON.stringify(out)) - 1;
      if (remaining <= 2) break;
      const next = fits(item, remaining) ? item : shrink(item, remaining);
      if (!fits([...out, next], budget)) break;
      out.push(next);
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const remaining = budget - byteLength(JSON.stringify(out)) - byteLength(JSON.stringify(k)) - 2;
      if (remaining <= 2) break;
      const next = fits(v, remaining) ? v : shrink(v, remaining);
      const candidate = { ...out, [k]: next };
      if (!fits(candidate, budget)) break;
      out[k] = next;
    }
    return out;
  }
  return fits(value, budget) ? value : null;
}
