import type { z } from "zod";

/**
 * A predicate compiled from a zod schema: true only when zod would accept the value AND return
 * it unchanged (no member stripped, nothing defaulted), which is what `validateEventJson` asks of
 * an event; on every JSON value it answers as zod does (compiled-check.property.test.ts proves it
 * against zod's own answer), and a caller that gets false still asks zod, for the reason. `depth` is the nesting of `value` (1 for the top-level object); any array or object
 * deeper than `maxDepth` makes it false, as `valueDepthExceeds` would.
 */
export type CompiledCheck = (value: unknown, depth: number, maxDepth: number) => boolean;

/** The schema uses something the compiler does not know to mirror exactly: use zod. */
export class UnsupportedSchemaError extends Error {
  override readonly name = "UnsupportedSchemaError";
}

/** What zod keeps of a schema and its checks; read, never written (the property test reads it too). */
export interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly coerce?: boolean;
  readonly shape?: Record<string, Schema>;
  readonly catchall?: Schema;
  readonly element?: Schema;
  readonly innerType?: Schema;
  readonly options?: readonly Schema[];
  readonly discriminator?: string;
  readonly unionFallback?: boolean;
  readonly inclusive?: boolean;
  readonly keyType?: Schema;
  readonly valueType?: Schema;
  readonly mode?: string;
  readonly getter?: () => Schema;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
}
export interface CheckDef {
  readonly check: string;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}
export interface Schema {
  readonly _zod: { readonly def: Def; readonly traits: ReadonlySet<string>; readonly optin?: string; readonly optout?: string; readonly values?: ReadonlySet<unknown> };
}

type Kind = "string" | "number" | "boolean" | "null" | "array" | "object" | "other";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
/** String formats whose zod check is exactly a test of `def.pattern`. */
const PATTERN_FORMATS = new Set(["regex", "datetime"]);

/** Compiles `schema`, or throws UnsupportedSchemaError naming what it cannot mirror. */
export function compileCheck(schema: z.ZodType): CompiledCheck {
  return new Compiler().compile(schema as unknown as Schema);
}

class Compiler {
  /** Compiled schemas (a recursive one, like z.json(), meets itself through a lazy). */
  private readonly done = new Map<Schema, CompiledCheck>();

  compile(s: Schema): CompiledCheck {
    const known = this.done.get(s);
    if (known !== undefined) return known;
    // a placeholder first: a schema reached again while it compiles resolves when called
    const slot: { check?: CompiledCheck } = {};
    this.done.set(s, (v, d, max) => slot.check!(v, d, max));
    slot.check = this.build(s);
    this.done.set(s, slot.check);
    return slot.check;
  }

  private build(s: Schema): CompiledCheck {
    const def = s._zod.def;
    if (def.coerce) throw new UnsupportedSchemaError("a coercing schema");
    switch (def.type) {
      case "string":
        return this.string(s);
      case "number":
        return this.number(s);
      case "boolean":
        this.noChecks(s);
        return (v) => typeof v === "boolean";
      case "null":
        this.noChecks(s);
        return (v) => v === null;
      case "literal":
      case "enum": {
        this.noChecks(s);
        const values = s._zod.values;
        if (values === undefined || ![...values].every((x) => x === null || ["string", "number", "boolean"].includes(typeof x))) {
          throw new UnsupportedSchemaError(`a ${def.type} of other than JSON primitives`);
        }
        return (v) => values.has(v);
      }
      case "nullable": {
        this.noChecks(s);
        const inner = this.compile(def.innerType!);
        return (v, d, max) => v === null || inner(v, d, max);
      }
      case "optional": {
        this.noChecks(s);
        if (def.innerType!._zod.optin !== undefined) throw new UnsupportedSchemaError("an optional with a default inside");
        const inner = this.compile(def.innerType!);
        return (v, d, max) => v === undefined || inner(v, d, max);
      }
      case "lazy":
        this.noChecks(s);
        return this.compile(lazyInner(s));
      case "array":
        return this.array(s);
      case "object":
        return this.object(s);
      case "record":
        return this.record(s);
      case "union":
        return def.discriminator === undefined ? this.union(s) : this.discriminated(s);
      default:
        throw new UnsupportedSchemaError(`a ${def.type} schema`);
    }
  }

  /** The checks zod runs on `s` (a format schema, like z.iso.datetime() or z.int(), is its own first check). */
  private checksOf(s: Schema): CheckDef[] {
    const own = s._zod.traits.has("$ZodCheck") ? [s._zod.def as unknown as CheckDef] : [];
    return [...own, ...(s._zod.def.checks ?? []).map((c) => c._zod.def)];
  }

  private noChecks(s: Schema): void {
    if (this.checksOf(s).length > 0) throw new UnsupportedSchemaError(`checks on a ${s._zod.def.type}`);
  }

  private string(s: Schema): CompiledCheck {
    const tests: ((v: string) => boolean)[] = [];
    for (const c of this.checksOf(s)) {
      if (c.check === "string_format" && c.pattern !== undefined && PATTERN_FORMATS.has(c.format ?? "")) {
        const pattern = c.pattern;
        if (pattern.global || pattern.sticky) throw new UnsupportedSchemaError("a stateful pattern");
        tests.push((v) => pattern.test(v));
      } else if (c.check === "min_length" && c.minimum !== undefined) {
        // zod counts code points (one or two UTF-16 units each): only between min and 2 * min
        // units is the count in doubt, and then it is counted, as zod does
        const min = c.minimum;
        tests.push((v) => v.length >= min * 2 || (v.length >= min && codePoints(v) >= min));
      } else if (c.check === "max_length" && c.maximum !== undefined) {
        // at most as many code points as units: only a string over the limit in units is counted
        const max = c.maximum;
        tests.push((v) => v.length <= max || codePoints(v) <= max);
      } else {
        throw new UnsupportedSchemaError(`string check ${c.check}${c.format === undefined ? "" : ` ${c.format}`}`);
      }
    }
    if (tests.length === 0) return (v) => typeof v === "string";
    return (v) => {
      if (typeof v !== "string") return false;
      for (const t of tests) if (!t(v)) return false;
      return true;
    };
  }

  private number(s: Schema): CompiledCheck {
    const tests: ((v: number) => boolean)[] = [];
    for (const c of this.checksOf(s)) {
      if (c.check === "number_format" && c.format === "safeint") tests.push((v) => Number.isSafeInteger(v));
      else if (c.check === "greater_than" && typeof c.value === "number") {
        const min = c.value;
        tests.push(c.inclusive ? (v) => v >= min : (v) => v > min);
      } else if (c.check === "less_than" && typeof c.value === "number") {
        const max = c.value;
        tests.push(c.inclusive ? (v) => v <= max : (v) => v < max);
      } else throw new UnsupportedSchemaError(`number check ${c.check}${c.format === undefined ? "" : ` ${c.format}`}`);
    }
    return (v) => {
      if (!isFiniteNumber(v)) return false;
      for (const t of tests) if (!t(v)) return false;
      return true;
    };
  }

  private array(s: Schema): CompiledCheck {
    let min = 0;
    let max = Infinity;
    for (const c of this.checksOf(s)) {
      if (c.check === "min_length" && c.minimum !== undefined) min = Math.max(min, c.minimum);
      else if (c.check === "max_length" && c.maximum !== undefined) max = Math.min(max, c.maximum);
      else throw new UnsupportedSchemaError(`array check ${c.check}`);
    }
    const element = this.compile(s._zod.def.element!);
    return (v, d, maxDepth) => {
      if (!Array.isArray(v) || d > maxDepth || v.length < min || v.length > max) return false;
      for (let i = 0; i < v.length; i++) if (!element(v[i], d + 1, maxDepth)) return false;
      return true;
    };
  }

  private object(s: Schema): CompiledCheck {
    this.noChecks(s);
    const def = s._zod.def;
    // zod's default object strips unknown members (the event is then refused as not stored as read)
    // and a strict one (catchall never) refuses them: this check says false to both; any other
    // catchall would keep them
    if (def.catchall !== undefined && def.catchall._zod.def.type !== "never") throw new UnsupportedSchemaError("an object with a catchall");
    const fields = Object.entries(def.shape ?? {}).map(([key, field]) => {
      // a missing member is read through the prototype by zod; none may be named like one of its members
      if (key in Object.prototype || key === "__proto__") throw new UnsupportedSchemaError(`an object member named ${key}`);
      const optional = field._zod.def.type === "optional";
      if (!optional && (field._zod.optin !== undefined || field._zod.optout !== undefined)) throw new UnsupportedSchemaError(`member ${key} with a default`);
      return { key, optional, check: this.compile(field) };
    });
    return (v, d, max) => {
      if (!isObject(v) || d > max) return false;
      let present = 0;
      for (const f of fields) {
        const x = v[f.key];
        if (x === undefined) {
          if (!f.optional) return false;
        } else {
          present++;
          if (!f.check(x, d + 1, max)) return false;
        }
      }
      // every member is one the schema knows: zod would strip any other
      let members = 0;
      for (const _ in v) members++;
      return members === present;
    };
  }

  private record(s: Schema): CompiledCheck {
    this.noChecks(s);
    const def = s._zod.def;
    const key = def.keyType!;
    if (key._zod.def.type !== "string" || this.checksOf(key).length > 0 || key._zod.def.coerce || (def.mode !== undefined && def.mode !== "strict")) {
      throw new UnsupportedSchemaError("a record keyed other than by any string");
    }
    const value = this.compile(def.valueType!);
    return (v, d, max) => {
      if (!isObject(v) || d > max) return false;
      for (const k in v) {
        // zod leaves a __proto__ member out of what it returns
        if (k === "__proto__" || !value(v[k], d + 1, max)) return false;
      }
      return true;
    };
  }

  /**
   * A union whose options take apart kinds of JSON value (as z.json()'s): at most one option can
   * accept a value, so the one of its kind decides, as zod's first accepting option would.
   */
  private union(s: Schema): CompiledCheck {
    this.noChecks(s);
    const def = s._zod.def;
    if (def.inclusive === false) throw new UnsupportedSchemaError("an exclusive union");
    const byKind = new Map<Kind, CompiledCheck>();
    for (const option of def.options ?? []) {
      const check = this.compile(option);
      for (const kind of this.kindsOf(option)) {
        if (byKind.has(kind)) throw new UnsupportedSchemaError(`a union with two options of kind ${kind}`);
        byKind.set(kind, check);
      }
    }
    return (v, d, max) => {
      const check = byKind.get(kindOf(v));
      return check !== undefined && check(v, d, max);
    };
  }

  private discriminated(s: Schema): CompiledCheck {
    this.noChecks(s);
    const def = s._zod.def;
    if (def.unionFallback) throw new UnsupportedSchemaError("a discriminated union with fallback");
    const disc = def.discriminator!;
    const byValue = new Map<unknown, CompiledCheck>();
    for (const option of def.options ?? []) {
      const tag = option._zod.def.shape?.[disc];
      const values = tag?._zod.def.type === "literal" ? tag._zod.values : undefined;
      if (option._zod.def.type !== "object" || values === undefined) throw new UnsupportedSchemaError("a discriminated option without a literal tag");
      const check = this.compile(option);
      for (const value of values) {
        if (byValue.has(value)) throw new UnsupportedSchemaError("two discriminated options with one tag");
        byValue.set(value, check);
      }
    }
    return (v, d, max) => {
      if (!isObject(v)) return false;
      const check = byValue.get(v[disc]);
      return check !== undefined && check(v, d, max);
    };
  }

  /** The kinds of JSON value an option can accept. */
  private kindsOf(s: Schema): Kind[] {
    const def = s._zod.def;
    switch (def.type) {
      case "string":
      case "number":
      case "boolean":
      case "null":
      case "array":
        return [def.type];
      case "object":
      case "record":
        return ["object"];
      case "literal":
      case "enum":
        return [...new Set([...(s._zod.values ?? [])].map(kindOf))];
      case "nullable":
        return [...new Set<Kind>([...this.kindsOf(def.innerType!), "null"])];
      case "lazy":
        return this.kindsOf(lazyInner(s));
      default:
        throw new UnsupportedSchemaError(`a ${def.type} inside a union`);
    }
  }
}

/** Code points of a string, as zod counts them for its length checks: a lone surrogate is one. */
function codePoints(v: string): number {
  let count = v.length;
  for (let i = 0; i < v.length - 1; i++) {
    if ((v.charCodeAt(i) & 0xfc00) === 0xd800 && (v.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/** The schema a lazy stands for, as zod resolves (and keeps) it. */
function lazyInner(s: Schema): Schema {
  return (s._zod as { readonly innerType?: Schema }).innerType ?? s._zod.def.getter!();
}

function kindOf(v: unknown): Kind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  const t = typeof v;
  return t === "string" || t === "number" || t === "boolean" || t === "object" ? t : "other";
}
