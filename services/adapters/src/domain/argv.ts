import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { fillTemplate, parseTemplate, scalarText, templateArgNames, type TemplatePart } from "./template.js";

/**
 * One argv element of a manifest: a template string (dropped when an arg it names is absent),
 * `{ spread: name }` (an array arg, one element per item), or `{ when: name, argv: [...] }`
 * (those elements only when the arg is true / present and not false).
 */
export type ArgvElement = string | { readonly spread: string } | { readonly when: string; readonly argv: readonly string[] };

/** Every arg name an argv template refers to; a template error is returned as a value. */
export function argvArgNames(template: readonly ArgvElement[]): Outcome<string[]> {
  const names: string[] = [];
  for (const el of template) {
    if (typeof el !== "string" && "spread" in el) {
      names.push(el.spread);
      continue;
    }
    const strings = typeof el === "string" ? [el] : el.argv;
    if (typeof el !== "string") names.push(el.when);
    for (const s of strings) {
      const parts = parseTemplate(s);
      if (!parts.ok) return parts;
      names.push(...templateArgNames(parts.value));
    }
  }
  return ok(names);
}

/**
 * Fills an argv template from validated args. A value that would start an element with `-` is
 * refused unless it comes after a literal `--`: an arg must never become an option of the command.
 */
export function buildArgv(template: readonly ArgvElement[], args: Readonly<Record<string, unknown>>): Outcome<string[]> {
  const out: string[] = [];
  let afterDashDash = false;
  const push = (name: string, text: string, startsWithArg: boolean): Outcome<void> => {
    if (startsWithArg && !afterDashDash && text.startsWith("-")) {
      return fail("INVALID_ARGS", `${name} may not start with "-": it would be read as an option (the manifest can put "--" before it)`);
    }
    out.push(text);
    if (!startsWithArg && text === "--") afterDashDash = true;
    return ok(undefined);
  };
  const pushTemplate = (s: string): Outcome<void> => {
    const parts = parseTemplate(s);
    if (!parts.ok) return parts;
    const filled = fillTemplate(parts.value, args);
    if (!filled.ok) return filled;
    if (filled.value.kind === "missing") return ok(undefined);
    return push(firstArg(parts.value) ?? s, filled.value.text, filled.value.startsWithArg);
  };
  for (const el of template) {
    if (typeof el === "string") {
      const r = pushTemplate(el);
      if (!r.ok) return r;
    } else if ("spread" in el) {
      const value = args[el.spread];
      if (value === undefined || value === null) continue;
      if (!Array.isArray(value)) return fail("INVALID_ARGS", `${el.spread} must be an array to spread into the command line`);
      for (const [i, item] of value.entries()) {
        const text = scalarText(`${el.spread}[${i}]`, item);
        if (!text.ok) return text;
        const r = push(`${el.spread}[${i}]`, text.value, true);
        if (!r.ok) return r;
      }
    } else {
      const cond = args[el.when];
      if (cond === undefined || cond === null || cond === false) continue;
      for (const s of el.argv) {
        const r = pushTemplate(s);
        if (!r.ok) return r;
      }
    }
  }
  return ok(out);
}

function firstArg(parts: readonly TemplatePart[]): string | undefined {
  const p = parts.find((x) => x.kind === "arg");
  return p?.kind === "arg" ? p.name : undefined;
}
