import { fail, ok, type Outcome } from "@warden/contracts/errors";

/** A template is literal text with `{arg}` placeholders naming top-level args; `{{` and `}}` are literal braces. */
export type TemplatePart = { readonly kind: "text"; readonly text: string } | { readonly kind: "arg"; readonly name: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function parseTemplate(template: string): Outcome<TemplatePart[]> {
  const parts: TemplatePart[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === "{" || c === "}") && template[i + 1] === c) {
      text += c;
      i++;
      continue;
    }
    if (c === "}") return fail("DESCRIPTOR_INVALID", `unmatched "}" at position ${i} of ${JSON.stringify(template)} (write "}}" for a literal brace)`);
    if (c !== "{") {
      text += c;
      continue;
    }
    const end = template.indexOf("}", i);
    if (end < 0) return fail("DESCRIPTOR_INVALID", `unclosed "{" at position ${i} of ${JSON.stringify(template)}`);
    const name = template.slice(i + 1, end).trim();
    if (!NAME.test(name)) return fail("DESCRIPTOR_INVALID", `{${name}} in ${JSON.stringify(template)} is not an argument name`);
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
    parts.push({ kind: "arg", name });
    i = end;
  }
  if (text !== "") parts.push({ kind: "text", text });
  return ok(parts);
}

/** The arg names a template refers to (for checking them against the inputSchema at load time). */
export function templateArgNames(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((p) => (p.kind === "arg" ? [p.name] : []));
}

export type Filled =
  | { readonly kind: "text"; readonly text: string; /** The text starts with an arg's value, not a literal. */ readonly startsWithArg: boolean }
  | { readonly kind: "missing"; readonly name: string };

/** Fills a template; a placeholder whose arg is absent makes the whole template `missing` (callers drop it). */
export function fillTemplate(
  parts: readonly TemplatePart[],
  args: Readonly<Record<string, unknown>>,
  encode: (value: string) => string = (v) => v,
): Outcome<Filled> {
  let text = "";
  for (const p of parts) {
    if (p.kind === "text") {
      text += p.text;
      continue;
    }
    const value = args[p.name];
    if (value === undefined || value === null) return ok({ kind: "missing", name: p.name });
    const scalar = scalarText(p.name, value);
    if (!scalar.ok) return scalar;
    text += encode(scalar.value);
  }
  return ok({ kind: "text", text, startsWithArg: parts[0]?.kind === "arg" });
}

/** The text form of a scalar arg; objects and arrays have no single text form. */
export function scalarText(name: string, value: unknown): Outcome<string> {
  if (typeof value === "string") {
    if (value.includes("\0")) return fail("INVALID_ARGS", `${name} contains a NUL character`);
    return ok(value);
  }
  if (typeof value === "number" || typeof value === "boolean") return ok(String(value));
  return fail("INVALID_ARGS", `${name} is ${Array.isArray(value) ? "an array" : "an object"}; this template needs a string, number or boolean`);
}
