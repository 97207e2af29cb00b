import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from "yaml";

/** A place in a document's text, both 1-based. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/**
 * Where a value of a parsed YAML or JSON document sits: the deepest node along `path` that exists
 * (a missing member points at its parent). With `key`, the key of that member instead of its value.
 */
export function positionOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[], key?: string): SourcePosition {
  let node: Node | null | undefined = doc.contents;
  for (const step of path) {
    const next = child(node, step, false);
    if (next === undefined || next === null) break;
    node = next;
  }
  if (key !== undefined) node = child(node, key, true) ?? node;
  const offset = node?.range?.[0];
  return at(lines, offset ?? 0);
}

/** The position of a character offset. */
export function at(lines: LineCounter, offset: number): SourcePosition {
  const p = lines.linePos(offset);
  return { line: p.line, column: p.col };
}

function child(node: Node | null | undefined, step: PropertyKey, wantKey: boolean): Node | null | undefined {
  if (isMap(node)) {
    // the last pair with the key wins, as it does when the document is read
    const pair = node.items.findLast((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(step));
    if (pair === undefined) return undefined;
    const k = pair.key as Node | null;
    return wantKey ? k : ((pair.value as Node | null) ?? k);
  }
  if (isSeq(node) && typeof step === "number") return node.items[step] as Node | undefined;
  return undefined;
}

/** Keys given twice in one mapping, each with the position of its later occurrence. */
export function duplicateKeys(doc: Document, lines: LineCounter): { path: (string | number)[]; key: string; position: SourcePosition }[] {
  const out: { path: (string | number)[]; key: string; position: SourcePosition }[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const p of node.items) {
        const k = isScalar(p.key) ? String(p.key.value) : String(p.key);
        if (seen.has(k)) out.push({ path, key: k, position: at(lines, (p.key as Node | null)?.range?.[0] ?? 0) });
        seen.add(k);
        walk(p.value, [...path, k]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]));
    }
  };
  walk(doc.contents, []);
  return out;
}
