/**
 * Secrets shorter than this many UTF-8 bytes are refused by the secret stores: their base64 forms
 * at a shifted alignment keep too few stable characters to match without shredding ordinary text.
 */
export const MIN_SECRET_BYTES = 8;

/** Characters a tool may put between the characters (or hex bytes) of a secret: `de-ad-be-ef`, `s e c`, a line break. */
const SEPARATOR = String.raw`(?:[-:._, \t]|\r?\n)?`;
/** base64 tools wrap lines (`base64` at 76 columns): a line break may fall anywhere. */
const LINE_BREAK = String.raw`(?:\r?\n)?`;

/** How the text is read: as JS strings, or as bytes held one per char (latin1), for binary bodies. */
export type PatternMode = "text" | "bytes";

/**
 * The regular-expression source that matches one secret in every encoding the Redactor covers:
 * the raw value with any of its characters URL-escaped (`%2F`, any case) or JSON-escaped
 * (`\u0041`, `\/`), optionally separated by a dash, colon, dot, space or line break; hex of its
 * UTF-8 bytes in either case, optionally `\x`/`0x`-prefixed and separated; base64 and base64url at
 * each of the three alignments a prefix can shift it to (only the characters that depend on the
 * secret alone, so any prefix or suffix still matches), line breaks allowed.
 */
export function secretPattern(value: string, mode: PatternMode): string {
  const bytes = Buffer.from(value, "utf8");
  const variants = [rawVariant(value, mode), hexVariant(bytes)];
  for (const shifted of base64Stable(bytes)) {
    variants.push(base64Variant(shifted));
    variants.push(base64Variant(toBase64Url(shifted)));
  }
  // longest first: the alternation takes the first that matches, and the longest covers most
  return [...new Set(variants)].sort((a, b) => b.length - a.length).join("|");
}

/**
 * The plain forms of a secret (raw, URL-escaped, hex both cases, each base64 alignment), for
 * spotting a secret's leading part at the end of cut-off output.
 */
export function literalForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const hex = bytes.toString("hex");
  const forms = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), hex, hex.toUpperCase()];
  for (const shifted of base64Stable(bytes)) forms.push(shifted, toBase64Url(shifted));
  return [...new Set(forms)];
}

/**
 * The characters of base64(prefix + secret) that depend on the secret only, for a prefix of 0, 1
 * and 2 bytes (mod 3): the characters mixing prefix bits or suffix bits are dropped.
 */
function base64Stable(bytes: Buffer): string[] {
  const out: string[] = [];
  for (const shift of [0, 1, 2]) {
    const total = shift + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64").replace(/=+$/, "");
    const head = shift === 0 ? 0 : shift + 1;
    const tail = total % 3 === 0 ? 0 : 1;
    const stable = encoded.slice(head, encoded.length - tail);
    // too short to tell from ordinary text; the stores refuse such secrets anyway
    if (stable.length >= 6) out.push(stable);
  }
  return out;
}

function toBase64Url(b64: string): string {
  return b64.replace(/\+/g, "-").replace(/\//g, "_");
}

function rawVariant(value: string, mode: PatternMode): string {
  return [...value].map((ch) => charForms(ch, mode)).join(SEPARATOR);
}

function hexVariant(bytes: Buffer): string {
  const pairs = [...bytes].map((b) => {
    const hex = b.toString(16).padStart(2, "0");
    return String.raw`(?:\\x|0x)?` + anyCase(hex[0]!) + anyCase(hex[1]!);
  });
  return pairs.join(SEPARATOR);
}

function base64Variant(text: string): string {
  // only the symbols get escape forms: letters and digits stay literal, which keeps the pattern fast
  return [...text].map((ch) => (/[A-Za-z0-9]/.test(ch) ? ch : `(?:${[escapeRegex(ch), ...percentForms(ch), ...jsonForms(ch)].join("|")})`)).join(LINE_BREAK);
}

/** A character as itself, URL-escaped or JSON-escaped; in bytes mode as its UTF-8 bytes. */
function charForms(ch: string, mode: PatternMode): string {
  const itself = mode === "bytes" ? Buffer.from(ch, "utf8").toString("latin1") : ch;
  const forms = [escapeRegex(itself), ...percentForms(ch), ...jsonForms(ch)];
  if (ch === " ") forms.push(String.raw`\+`);
  return forms.length === 1 ? forms[0]! : `(?:${forms.join("|")})`;
}

function percentForms(ch: string): string[] {
  const hex = [...Buffer.from(ch, "utf8")].map((b) => `%${[...b.toString(16).padStart(2, "0")].map(anyCase).join("")}`);
  return [hex.join("")];
}

function jsonForms(ch: string): string[] {
  const units = [...ch].length === 1 && ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)];
  const unicode = units.map((u) => String.raw`\\u` + [...u.toString(16).padStart(4, "0")].map(anyCase).join("")).join("");
  const forms = [unicode];
  const short = JSON.stringify(ch).slice(1, -1);
  if (short !== ch && short.startsWith("\\") && !short.startsWith("\\u")) forms.push(escapeRegex(short));
  if (ch === "/") forms.push(String.raw`\\/`);
  return forms;
}

function anyCase(ch: string): string {
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  return lower === upper ? escapeRegex(ch) : `[${lower}${upper}]`;
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}
