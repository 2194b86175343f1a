/**
 * Rows as aligned text columns (two spaces apart, the last column not padded), one line
 * each, the first row being the header: how `loopchart sessions` lists sessions and runs.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const header = rows[0] ?? [];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows
    .map((row) => `${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ")}\n`)
    .join("");
}
