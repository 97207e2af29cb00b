import { cut } from "../output.js";

// hashes are shortened as every trace view does, the HTML timeline's included
export { SHORT_HASH_HEX, shortHash } from "@warden/projections";

/**
 * Short forms for text that must fit 100 columns (`trace`, `audit`); `--wide`, `--json` and CSV
 * always carry the full values.
 */

/** Characters a shortened id keeps: the end of the id, its random part (the start is its time). */
export const SHORT_ID_CHARS = 8;

/** `…zTnlU0ab`: the last characters of a long id (ids begin with their time, so the end tells them apart). */
export function shortId(id: string): string {
  return id.length <= SHORT_ID_CHARS + 4 ? id : `…${id.slice(-SHORT_ID_CHARS)}`;
}

/**
 * A name cut to `max` characters by its middle (`custo…fp0Q2xLa`): its start says what it is, its
 * end tells instances apart (an executor id is `<domain>-<id>`).
 */
export function middleCut(name: string, max: number): string {
  if (name.length <= max) return name;
  const tail = Math.min(SHORT_ID_CHARS, max - 2);
  return `${name.slice(0, max - 1 - tail)}…${name.slice(-tail)}`;
}

/** `11-29 13:32:36` (UTC) for an ISO time; anything else unchanged. */
export function shortTime(iso: string): string {
  const m = /^\d{4}-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m === null ? iso : `${m[1]} ${m[2]}`;
}

/** A token longer than a whole line is broken over at most this many lines, then cut. */
export const MAX_TOKEN_LINES = 3;

/**
 * Lays `tokens` out after `prefix` in lines of at most `width` characters, continuing under the
 * first token. A token longer than a line gets lines of its own (at most MAX_TOKEN_LINES, the
 * last cut with an ellipsis). When the prefix leaves less than `minRoom`, the tokens start on the
 * next line at `fallbackIndent`.
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
  const flush = () => {
    lines.push(current);
    current = indent;
    empty = true;
  };
  for (const token of tokens) {
    if (token.length > room) {
      if (!empty) flush();
      const chunks = breakToken(token, room);
      for (const c of chunks) {
        current = `${current}${c}`;
        flush();
      }
      continue;
    }
    if (!empty && current.length + 1 + token.length > width) flush();
    current = empty ? `${current}${token}` : `${current} ${token}`;
    empty = false;
  }
  if (!empty || lines.length === 0) lines.push(current);
  return lines;
}

/**
 * A token too long for one line, in pieces of at most `room` characters, broken after a space or
 * a comma where one falls in a piece's second half; after MAX_TOKEN_LINES pieces the rest is cut.
 */
function breakToken(token: string, room: number): string[] {
  const pieces: string[] = [];
  let rest = token;
  while (rest.length > 0 && pieces.length < MAX_TOKEN_LINES) {
    if (rest.length <= room) {
      pieces.push(rest);
      rest = "";
      break;
    }
    const window = rest.slice(0, room);
    const at = Math.max(window.lastIndexOf(" "), window.lastIndexOf(","));
    const end = at >= room / 2 ? at + 1 : room;
    pieces.push(rest.slice(0, end).trimEnd());
    rest = rest.slice(end);
  }
  if (rest.length > 0) pieces[pieces.length - 1] = cut(`${pieces.at(-1)!} ${rest}`, room);
  return pieces;
}

/** Every line of `text` longer than `width` wrapped at its spaces, continued four columns in from its own indent. */
export function fitLines(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((line) => {
      if (line.length <= width) return [line];
      const indent = /^ */.exec(line)![0];
      const words = line.slice(indent.length).split(" ");
      return wrapTokens(`${indent}${words[0]!} `, words.slice(1), width, `${indent}    `, 0).map((l, i) => (i === 0 ? l : `${indent}    ${l.trimStart()}`));
    })
    .join("\n");
}
