const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON bytes nest objects and arrays deeper than `max`, found by counting brackets outside
 * strings: no parse, no recursion. Recursive code downstream (zod, canonical JSON, ajv) overflows
 * its stack a few thousand levels down; this scan lets a decoder refuse such input first. Safe on
 * UTF-8: bytes of multi-byte characters are all >= 0x80, so they never look like brackets or quotes.
 */
export function jsonDepthExceeds(data: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
