import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts/policy";
import { LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { closest } from "./closest.js";
import { lintPolicyDocument, type LintCode, type LintContext } from "./lint-document.js";
import { at, duplicateKeys, positionOf, type SourcePosition } from "./source-position.js";

/** Codes of the errors `checkPolicyText` reports (warnings carry the lint's codes). */
export const CHECK_ERROR_CODES = {
  /** Neither JSON nor YAML (or several YAML documents in one file). */
  syntax: "syntax",
  /** A YAML mapping gives a key twice (in JSON the last one wins: a warning). */
  duplicateKey: "duplicate_key",
  /** A field the schema does not know: often a typo. */
  unknownField: "unknown_field",
  /** A required field is missing. */
  missingField: "missing_field",
  /** A value the schema refuses (wrong type, not one of the allowed values, a duplicate rule id, ...). */
  invalidValue: "invalid_value",
} as const;
export type CheckErrorCode = (typeof CHECK_ERROR_CODES)[keyof typeof CHECK_ERROR_CODES];

export interface PolicyDiagnostic extends SourcePosition {
  readonly severity: "error" | "warning";
  readonly code: CheckErrorCode | LintCode;
  readonly message: string;
  /** The value's path, e.g. `rules[2].match.tool`; empty for the document itself. */
  readonly path: string;
}

export interface PolicyCheck {
  /** Whether `policy set` would store the document (no errors; warnings do not count). */
  readonly ok: boolean;
  /** How the text was read: JSON when it is JSON, else YAML, as `policy set` reads it. */
  readonly format: "json" | "yaml";
  /** The document as `policy set` would store it, when it is valid. */
  readonly document?: PolicyDocument;
  readonly errors: readonly PolicyDiagnostic[];
  /** The lint (only for a valid document), and duplicate keys of a JSON document. */
  readonly warnings: readonly PolicyDiagnostic[];
}

/**
 * Checks a policy document's text as `policy set` would read it (JSON first when it starts with
 * `{`, else YAML), with every error at its line and column: syntax, duplicate keys, unknown
 * fields (with the nearest known one), missing fields and invalid values. A valid document is
 * then linted (`lintPolicyDocument`) against what `context` knows.
 */
export function checkPolicyText(text: string, context: LintContext = {}): PolicyCheck {
  const lines = new LineCounter();
  const json = readJson(text);
  // positions come from the YAML parse in both cases: JSON is YAML, and the parse keeps every node's offset
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: json === undefined });
  const errors: PolicyDiagnostic[] = [];
  const warnings: PolicyDiagnostic[] = [];
  let raw: unknown;
  if (json !== undefined) {
    raw = json.value;
    for (const d of duplicateKeys(doc, lines)) {
      warnings.push({ severity: "warning", code: CHECK_ERROR_CODES.duplicateKey, path: dotted([...d.path, d.key]), message: `key ${d.key} is given twice; the last one counts`, ...d.position });
    }
  } else {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const code = e.code === "DUPLICATE_KEY" ? CHECK_ERROR_CODES.duplicateKey : CHECK_ERROR_CODES.syntax;
        errors.push({ severity: "error", code, path: "", message: firstLine(e.message), ...at(lines, e.pos[0]) });
      }
      return { ok: false, format: "yaml", errors: sorted(errors), warnings };
    }
    raw = doc.toJS({ maxAliasCount: 100 });
  }
  const format = json === undefined ? "yaml" : "json";
  const parsed = PolicyDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push(...schemaErrors(issue, raw, doc, lines));
    return { ok: false, format, errors: sorted(errors), warnings: sorted(warnings) };
  }
  for (const f of lintPolicyDocument(parsed.data, context)) {
    warnings.push({ severity: "warning", code: f.code, path: dotted(f.path), message: f.message, ...positionOf(doc, lines, f.path) });
  }
  return { ok: true, format, document: parsed.data, errors, warnings: sorted(warnings) };
}

/** JSON.parse as `policy set` tries it first (only for text that starts with `{`). */
function readJson(text: string): { value: unknown } | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function schemaErrors(issue: z.core.$ZodIssue, raw: unknown, doc: Document, lines: LineCounter): PolicyDiagnostic[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const known = keysAt(PolicyDocumentSchema, path) ?? [];
    return issue.keys.map((key) => {
      const near = closest(key, known);
      const hint = near !== undefined ? `; did you mean ${near}?` : known.length > 0 ? `; known fields: ${known.join(", ")}` : "";
      return { severity: "error", code: CHECK_ERROR_CODES.unknownField, path: dotted([...path, key]), message: `unknown field ${key}${hint}`, ...positionOf(doc, lines, path, key) };
    });
  }
  // zod names a missing field by what it expected there (a type, one of the allowed values)
  const missing = path.length > 0 && valueAt(raw, path) === undefined;
  const field = path[path.length - 1];
  return [
    {
      severity: "error",
      code: missing ? CHECK_ERROR_CODES.missingField : CHECK_ERROR_CODES.invalidValue,
      path: dotted(path),
      message: missing ? `missing required field ${String(field)}` : issue.message,
      ...positionOf(doc, lines, path),
    },
  ];
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let v = value;
  for (const step of path) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, step)) return undefined;
    v = (v as Record<string | number, unknown>)[step];
  }
  return v;
}

/** The shape of a zod schema as far as this walk needs it (zod 4's public `def`). */
interface SchemaDef {
  readonly type: string;
  readonly shape?: Record<string, unknown>;
  readonly element?: unknown;
  readonly valueType?: unknown;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly options?: readonly unknown[];
}

function defOf(schema: unknown): SchemaDef | undefined {
  const def = (schema as { def?: SchemaDef } | undefined)?.def;
  return typeof def?.type === "string" ? def : undefined;
}

/** Looks through defaults, optionals and transforms to the schema that holds the value. */
function unwrap(schema: unknown): SchemaDef | undefined {
  let def = defOf(schema);
  for (let i = 0; def !== undefined && i < 10; i++) {
    if (def.innerType !== undefined) def = defOf(def.innerType);
    else if (def.type === "pipe") def = defOf(def.in);
    else return def;
  }
  return def;
}

/** The field names an object in the document accepts at `path` (for "did you mean"). */
function keysAt(schema: unknown, path: readonly (string | number)[]): string[] | undefined {
  let def = unwrap(schema);
  for (const step of path) {
    if (def === undefined) return undefined;
    if (def.type === "union") def = unwrap(def.options?.find((o) => unwrap(o)?.type === (typeof step === "number" ? "array" : "object")));
    if (def?.type === "object") def = unwrap(def.shape?.[String(step)]);
    else if (def?.type === "array") def = unwrap(def.element);
    else if (def?.type === "record") def = unwrap(def.valueType);
    else return undefined;
  }
  return def?.type === "object" && def.shape !== undefined ? Object.keys(def.shape) : undefined;
}

function sorted(list: PolicyDiagnostic[]): PolicyDiagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.column - b.column);
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** `rules[2].match.tool`, as the manifests' errors name paths. */
export function dotted(path: readonly PropertyKey[]): string {
  let out = "";
  for (const step of path) out += typeof step === "number" ? `[${step}]` : out === "" ? String(step) : `.${String(step)}`;
  return out;
}
