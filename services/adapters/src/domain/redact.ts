/** Secrets shorter than this could not be redacted without shredding ordinary text. */
export const MIN_SECRET_LENGTH = 6;
/** A cut-off output ending in this much of a secret has that tail redacted too. */
const MIN_PARTIAL = 3;

interface Variant {
  readonly name: string;
  readonly text: string;
}

/**
 * Replaces secret values with `[REDACTED:<name>]` in text and in JSON values (strings and keys),
 * including the common encodings a tool may echo them in (URL, base64, JSON string escapes).
 */
export class Redactor {
  private readonly variants: readonly Variant[];

  constructor(secrets: ReadonlyMap<string, string> | Iterable<readonly [string, string]>) {
    const variants: Variant[] = [];
    for (const [name, value] of secrets) {
      if (value.length === 0) continue;
      const forms = new Set([value, encodeURIComponent(value), Buffer.from(value).toString("base64"), JSON.stringify(value).slice(1, -1)]);
      for (const text of forms) variants.push({ name, text });
    }
    // longest first, so a secret that contains another is replaced whole
    this.variants = variants.sort((a, b) => b.text.length - a.text.length);
  }

  static none(): Redactor {
    return new Redactor([]);
  }

  get empty(): boolean {
    return this.variants.length === 0;
  }

  /** Redacts text; `cut` says the text was truncated, so a secret's leading part at its end is redacted too. */
  text(input: string, cut = false): string {
    if (this.empty) return input;
    let out = input;
    for (const v of this.variants) out = out.split(v.text).join(`[REDACTED:${v.name}]`);
    return cut ? this.redactPartialTail(out) : out;
  }

  /** Redacts every string and key of a JSON-like value. */
  value<T>(input: T): T {
    if (this.empty) return input;
    return this.walk(input) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === "string") return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.walk(x);
      return out;
    }
    return v;
  }

  private redactPartialTail(text: string): string {
    for (const v of this.variants) {
      for (let n = Math.min(v.text.length - 1, text.length); n >= MIN_PARTIAL; n--) {
        if (text.endsWith(v.text.slice(0, n))) return `${text.slice(0, text.length - n)}[REDACTED:${v.name}]`;
      }
    }
    return text;
  }
}
