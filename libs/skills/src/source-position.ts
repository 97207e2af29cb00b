import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from "yaml";

/** A place in a file, both 1-based. */
export interface SourcePosition {
  readonly line: number;
  readonly col: number;
}

/**
 * Where a value of the front matter sits, as a place in SKILL.md (`firstLine` is the front
 * matter's first line in the file): the deepest node along `path` that exists, so a missing
 * member points at its parent.
 */
export function positionIn(doc: Document, lines: LineCounter, firstLine: number, path: readonly PropertyKey[]): SourcePosition | undefined {
  let node: Node | null | undefined = doc.contents;
  for (const step of path) {
    const next = child(node, step);
    if (next === undefined || next === null) break;
    node = next;
  }
  const offset = node?.range?.[0];
  if (offset === undefined) return undefined;
  const p = lines.linePos(offset);
  return { line: p.line + firstLine - 1, col: p.col };
}

function child(node: Node | null | undefined, step: PropertyKey): Node | null | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(step));
    return pair === undefined ? undefined : ((pair.value as Node | null) ?? (pair.key as Node | null));
  }
  if (isSeq(node) && typeof step === "number") return node.items[step] as Node | undefined;
  return undefined;
}

/** `tools[0].args`: the form every issue names its path in. */
export function dottedPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const step of path) out += typeof step === "number" ? `[${step}]` : out === "" ? String(step) : `.${String(step)}`;
  return out;
}
