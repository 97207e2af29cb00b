import { literalForms, secretPattern, type PatternMode } from "./secret-patterns.js";

/** A cut-off output ending in this much of a secret's form has that tail redacted too. */
const MIN_PARTIAL = 4;

/**
 * Pattern sources by mode and value: a Redactor is made per call, and building a secret's variants
 * costs milliseconds; with the same source V8 also reuses its compiled regular expression. Bounded,
 * oldest out, so rotated values do not pile up.
 */
const PATTERNS = new Map<string, string>();
const MAX_PATTERNS = 256;

function patternOf(value: string, mode: PatternMode): string {
  const key = `${mode}\0${value}`;
  let source = PATTERNS.get(key);
  if (source === undefined) {
    source = secretPattern(value, mode);
    if (PATTERNS.size >= MAX_PATTERNS) PATTERNS.delete(PATTERNS.keys().next().value!);
    PATTERNS.set(key, source);
  }
  return source;
}

interface Compiled {
  readonly regex: RegExp;
  /** The secret's name for each capture group, in group order. */
  readonly names: readonly string[];
}

/**
 * Replaces secret values with `[REDACTED:<name>]` in text, bytes and JSON values (strings and
 * keys), in every encoding `secretPattern` covers. The patterns of all secrets are compiled once,
 * into one alternation per mode, so a text is scanned in one pass. Redaction is a net, not a
 * wall: a tool that transforms a secret some other way (encrypts, reverses, splits it between
 * stdout and stderr) still leaks it; scoped, short-lived credentials are the guard.
 */
export class Redactor {
  private readonly secrets: readonly (readonly [string, string])[];
  private readonly compiled = new Map<PatternMode, Compiled>();
  private partials: readonly { readonly name: string; readonly text: string }[] | undefined;

  constructor(secrets: ReadonlyMap<string, string> | Iterable<readonly [string, string]>) {
    // longest first, so a secret that contains another is replaced whole
    this.secrets = [...secrets].filter(([, v]) => v.length > 0).sort((a, b) => b[1].length - a[1].length);
  }

  static none(): Redactor {
    return new Redactor([]);
  }

  get empty(): boolean {
    return this.secrets.length === 0;
  }

  /** A redactor for these secrets and `more` (a call's own secrets added to the executor's). */
  with(more: Iterable<readonly [string, string]>): Redactor {
    return new Redactor([...this.secrets, ...more]);
  }

  /** Redacts text; `cut` says the text was truncated, so a secret's leading part at its end is redacted too. */
  text(input: string, cut = false): string {
    if (this.empty) return input;
    const out = this.replace(input, "text");
    return cut ? this.redactPartialTail(out) : out;
  }

  /** Redacts raw bytes (a binary body) before anything encodes them. */
  bytes(input: Uint8Array): Buffer {
    const buf = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    if (this.empty) return buf;
    return Buffer.from(this.replace(buf.toString("latin1"), "bytes"), "latin1");
  }

  /** Redacts every string and key of a JSON-like value. */
  value<T>(input: T): T {
    if (this.empty) return input;
    return this.walk(input) as T;
  }

  private replace(input: string, mode: PatternMode): string {
    const { regex, names } = this.compile(mode);
    return input.replace(regex, (...groups: unknown[]) => {
      const i = groups.slice(1, names.length + 1).findIndex((g) => g !== undefined);
      return `[REDACTED:${names[i] ?? "secret"}]`;
    });
  }

  private compile(mode: PatternMode): Compiled {
    let c = this.compiled.get(mode);
    if (c === undefined) {
      const names = this.secrets.map(([name]) => name);
      const source = this.secrets.map(([, value]) => `(${patternOf(value, mode)})`).join("|");
      c = { regex: new RegExp(source, "g"), names };
      this.compiled.set(mode, c);
    }
    return c;
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
    this.partials ??= this.secrets.flatMap(([name, value]) => literalForms(value).map((form) => ({ name, text: form })));
    for (const p of this.partials) {
      for (let n = Math.min(p.text.length - 1, text.length); n >= MIN_PARTIAL; n--) {
        if (text.endsWith(p.text.slice(0, n))) return `${text.slice(0, text.length - n)}[REDACTED:${p.name}]`;
      }
    }
    return text;
  }
}
