/**
 * Finds a canary secret in text in any encoding the canary suite drives through tools, written
 * apart from the Redactor on purpose: a scan that shared its patterns would share its blind spots.
 * Returns the names of the forms found (empty when the text is clean).
 */
export function canaryLeaks(text: string, secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const hex = bytes.toString("hex");
  const forms: [string, string][] = [
    ["raw", secret],
    ["url", encodeURIComponent(secret)],
    ["hex", hex],
    ["hex-upper", hex.toUpperCase()],
  ];
  for (const shift of [0, 1, 2]) {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64").replace(/=+$/, "");
    // the characters that depend on the secret alone, whatever comes before or after it
    const stable = b64.slice(shift === 0 ? 0 : shift + 1, (shift + bytes.length) % 3 === 0 ? b64.length : b64.length - 1);
    forms.push([`base64@${shift}`, stable], [`base64url@${shift}`, stable.replace(/\+/g, "-").replace(/\//g, "_")]);
  }
  const views = readings(text);
  const found = new Set<string>();
  for (const [name, form] of forms) {
    const squeezed = squeeze(form);
    for (const [how, view] of views) {
      if (view.includes(form) || (how === "squeezed" && squeezed.length >= 8 && view.includes(squeezed))) found.add(`${name} (${how})`);
    }
  }
  return [...found];
}

/** The text as read plain, with JSON and URL escapes undone, and with separators and escaped line breaks taken out. */
function readings(text: string): [string, string][] {
  const unescaped = text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\\//g, "/")
    .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return [
    ["plain", text],
    ["unescaped", unescaped],
    ["squeezed", squeeze(unescaped.replace(/\\[nr]/g, ""))],
  ];
}

function squeeze(text: string): string {
  return text.replace(/[-:\s]/g, "");
}
