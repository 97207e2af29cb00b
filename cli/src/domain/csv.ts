/**
 * CSV as RFC 4180 writes it: a field with a comma, a quote, a line break or edge spaces is
 * quoted, quotes doubled. Text that a spreadsheet would run as a formula (starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return) gets a leading `'` (OWASP's advice: an audit export
 * carries text agents wrote, and opening it must not run anything); numbers are written as they are.
 */
export function csvField(value: string | number): string {
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record (without its line end). */
export function csvRecord(values: readonly (string | number)[]): string {
  return values.map(csvField).join(",");
}
