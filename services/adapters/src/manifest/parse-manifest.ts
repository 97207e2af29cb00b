import { LineCounter, parseDocument } from "yaml";
import { ManifestSchema, type Manifest } from "./manifest-schema.js";
import { positionOf, type SourcePosition } from "./source-position.js";

export interface ManifestIssue {
  /** Dotted path of the value, e.g. `tools[1].http.method`; empty for the manifest itself. */
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly col?: number;
}

export type ManifestParse =
  | { readonly ok: true; readonly manifest: Manifest }
  | { readonly ok: false; readonly issues: readonly ManifestIssue[]; /** Every issue, one per line, `file:line:col: path: message`. */ readonly message: string };

/** Parses a YAML or JSON manifest and validates it; every error names its line and path. */
export function parseManifest(text: string, source = "manifest"): ManifestParse {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) => {
      const pos = e.pos[0] === undefined ? undefined : lines.linePos(e.pos[0]);
      return withPosition({ path: "", message: e.message.split("\n")[0] ?? e.message }, pos);
    });
    return failure(source, issues);
  }
  const parsed = ManifestSchema.safeParse(doc.toJS({ maxAliasCount: 100 }));
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const issues = parsed.error.issues.map((issue) => {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const pos = positionOf(doc, lines, issue.path, keys[0]);
    const path = dotted([...issue.path, ...(keys.length === 1 ? [keys[0]!] : [])]);
    return withPosition({ path, message: issue.message }, pos);
  });
  return failure(source, issues);
}

function withPosition(issue: { path: string; message: string }, pos: SourcePosition | undefined): ManifestIssue {
  return pos === undefined ? issue : { ...issue, line: pos.line, col: pos.col };
}

function failure(source: string, issues: ManifestIssue[]): ManifestParse {
  const message = issues
    .map((i) => `${source}${i.line === undefined ? "" : `:${i.line}:${i.col}`}: ${i.path === "" ? "" : `${i.path}: `}${i.message}`)
    .join("\n");
  return { ok: false, issues, message };
}

export function dotted(path: readonly PropertyKey[]): string {
  let out = "";
  for (const step of path) out += typeof step === "number" ? `[${step}]` : out === "" ? String(step) : `.${String(step)}`;
  return out;
}
