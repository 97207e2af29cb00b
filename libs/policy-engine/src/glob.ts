/** `*` matches any run of characters; everything else is literal. */
export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes("*")) return pattern === value;
  const re = new RegExp(`^${pattern.split("*").map(escape).join(".*")}$`);
  return re.test(value);
}

export function anyGlob(patterns: readonly string[] | undefined, value: string): boolean {
  return patterns === undefined || patterns.some((p) => globMatch(p, value));
}

function escape(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}
