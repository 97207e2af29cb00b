/** "; did you mean kb.search?" or "; did you mean a, b or c?", empty with nothing close. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return "";
  const last = names[names.length - 1]!;
  return `; did you mean ${names.length === 1 ? last : `${names.slice(0, -1).join(", ")} or ${last}`}?`;
}
