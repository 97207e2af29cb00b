/**
 * Parses CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF line ends) into records of
 * fields: how tests read an exported audit back, independently of the code that wrote it.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endField = () => {
    record.push(field);
    field = "";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === ",") endField();
    else if (c === "\r" && text[i + 1] === "\n") {
      endField();
      records.push(record);
      record = [];
      i++;
    } else if (c === "\n") {
      endField();
      records.push(record);
      record = [];
    } else field += c;
    i++;
  }
  if (field !== "" || record.length > 0) {
    endField();
    records.push(record);
  }
  return records;
}
