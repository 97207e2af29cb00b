import { isMap, isScalar, isSeq, LineCounter, type Document, type Node } from "yaml";

export interface SourcePosition {
  readonly line: number;
  readonly col: number;
}

/**
 * Where a value of a parsed YAML/JSON document sits: the deepest node along `path` that exists
 * (a missing member points at its parent). `key` points at a member's key instead of its value.
 */
export function positionOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[], key?: string): SourcePosition | undefined {
  let node: Node | null | undefined = doc.contents;
  for (const step of path) {
    const next = child(node, step, false);
    if (next === undefined) break;
    node = next;
  }
  if (key !== undefined) node = child(node, key, true) ?? node;
  const offset = node?.range?.[0];
  return offset === undefined ? undefined : lines.linePos(offset);
}

function child(node: Node | null | undefined, step: PropertyKey, wantKey: boolean): Node | null | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(step));
    if (pair === undefined) return undefined;
    const k = pair.key as Node | null;
    return wantKey ? k : ((pair.value as Node | null) ?? k);
  }
  if (isSeq(node) && typeof step === "number") return node.items[step] as Node | undefined;
  return undefined;
}
