import { cut } from "../output.js";

/**
 * Short forms for text that must fit 100 columns (`trace`, `audit`); `--wide`, `--json` and CSV
 * always carry the full values.
 */

/** Hex digits a shortened hash keeps: enough to tell the hashes of one trace apart. */
export const SHORT_HASH_HEX = 8;
/** Characters a shortened id keeps: the end of the id, its random part (the start is its time). */
export const SHORT_ID_CHARS = 8;

/** `sha256:c557889a…` for `sha256:c557889a<56 more>`; anything that is not such a hash unchanged. */
export function shortHash(hash: string): string {
  const m = /^(sha256:)?([0-9a-f]{64})$/.exec(hash);
  if (m === null) return hash;
  return `${m[1] ?? ""}${m[2]!.slice(0, SHORT_HASH_HEX)}…`;
}

/** `…zTnlU0ab`: the last characters of a long id (ids begin with their time, so the end tells them apart). */
export function shortId(id: string): string {
  return id.length <= SHORT_ID_CHARS + 4 ? id : `…${id.slice(-SHORT_ID_CHARS)}`;
}

/** `11-29 13:32:36` (UTC) for an ISO time; anything else unchanged. */
export function shortTime(iso: string): string {
  const m = /^\d{4}-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m === null ? iso : `${m[1]} ${m[2]}`;
}

/**
 * Lays `tokens` out after `prefix` in lines of at most `width` characters, continuing under the
 * first token; a token longer than a line is cut with an ellipsis. When the prefix leaves less
 * than `minRoom`, the tokens start on the next line at `fallbackIndent`.
 */
export function wrapTokens(prefix: string, tokens: readonly string[], width: number, fallbackIndent: string, minRoom = 36): string[] {
  const head = prefix.trimEnd();
  if (tokens.length === 0) return [cut(head, width)];
  const roomy = width - prefix.length >= minRoom;
  const lines: string[] = roomy ? [] : [cut(head, width)];
  const indent = roomy ? " ".repeat(prefix.length) : fallbackIndent;
  const room = Math.max(1, width - indent.length);
  let current = roomy ? prefix : indent;
  let empty = true;
  for (const raw of tokens) {
    const token = cut(raw, room);
    if (!empty && current.length + 1 + token.length > width) {
      lines.push(current);
      current = indent;
      empty = true;
    }
    current = empty ? `${current}${token}` : `${current} ${token}`;
    empty = false;
  }
  lines.push(current);
  return lines;
}
