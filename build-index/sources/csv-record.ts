// rfc 4180 field splitting. callers split plain lines (no quote) with String#split and only send
// quoted records here; slicing between indexOf hits avoids building fields char by char.

/**
 * Splits one CSV record into its fields, honouring quoted fields (commas, doubled quotes and line
 * breaks inside quotes). Returns null when the text ends inside a quoted field, i.e. the record
 * continues on the next line. Lenient where RFC 4180 is strict: a quote inside an unquoted field
 * is kept as text, and text after a closing quote is appended to the field.
 */
export function splitCsvRecord(text: string): string[] | null {
  const fields: string[] = []
  let i = 0
  for (;;) {
    if (text.charCodeAt(i) === 0x22) {
      const end = readQuoted(text, i + 1)
      if (end === null) return null
      i = end.next
      const comma = text.indexOf(',', i)
      const tail = comma < 0 ? text.slice(i) : text.slice(i, comma)
      fields.push(end.value + tail)
      if (comma < 0) return fields
      i = comma + 1
    } else {
      const comma = text.indexOf(',', i)
      if (comma < 0) {
        fields.push(text.slice(i))
        return fields
      }
      fields.push(text.slice(i, comma))
      i = comma + 1
    }
  }
}

// reads a quoted field's content starting after its opening quote
function readQuoted(text: string, from: number): { value: string; next: number } | null {
  let value = ''
  let i = from
  for (;;) {
    const quote = text.indexOf('"', i)
    if (quote < 0) return null
    value += text.slice(i, quote)
    if (text.charCodeAt(quote + 1) !== 0x22) return { value, next: quote + 1 }
    value += '"'
    i = quote + 2
  }
}
