/**
 * Finding an edit's `oldText` in a file: exactly first, then tolerantly (trailing
 * whitespace, smart quotes, Unicode dashes, odd spaces), always as a range of the
 * original text so that everything outside the range stays byte for byte.
 */

/** Where one edit applies in the original text. */
export interface MatchRange {
  start: number;
  end: number;
}

/** The outcome of looking for one `oldText`. */
export type MatchOutcome =
  | { kind: "found"; range: MatchRange; fuzzy: boolean }
  | { kind: "notFound" }
  | { kind: "ambiguous"; count: number };

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032]/;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033]/;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/;
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/;

function foldChar(c: string): string {
  if (SINGLE_QUOTES.test(c)) return "'";
  if (DOUBLE_QUOTES.test(c)) return '"';
  if (DASHES.test(c)) return "-";
  if (ODD_SPACES.test(c)) return " ";
  return c;
}

/** `text` folded for tolerant matching, with `map[i]` the index in `text` of folded char `i`. */
export function foldText(text: string): { folded: string; map: number[] } {
  const out: string[] = [];
  const map: number[] = [];
  let pending: { c: string; i: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = foldChar(text[i]);
    if (c === " " || c === "\t") {
      pending.push({ c, i });
      continue;
    }
    if (c !== "\n") {
      for (const p of pending) {
        out.push(p.c);
        map.push(p.i);
      }
    }
    pending = [];
    out.push(c);
    map.push(i);
  }
  return { folded: out.join(""), map };
}

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** Looks for `oldText` (non-empty) in `text`: an exact unique match, else a unique tolerant one. */
export function findMatch(text: string, oldText: string): MatchOutcome {
  const exact = occurrences(text, oldText);
  if (exact.length === 1) return { kind: "found", range: { start: exact[0], end: exact[0] + oldText.length }, fuzzy: false };
  if (exact.length > 1) return { kind: "ambiguous", count: exact.length };
  const { folded, map } = foldText(text);
  const needle = foldText(oldText).folded;
  if (needle === "") return { kind: "notFound" };
  const fuzzy = occurrences(folded, needle);
  if (fuzzy.length > 1) return { kind: "ambiguous", count: fuzzy.length };
  if (fuzzy.length === 0) return { kind: "notFound" };
  const start = map[fuzzy[0]];
  const end = map[fuzzy[0] + needle.length - 1] + 1;
  return { kind: "found", range: { start, end }, fuzzy: true };
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const g = text.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

/** Dice similarity of two strings' character bigrams, 0..1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const ga = bigrams(a);
  let shared = 0;
  for (const [g, n] of bigrams(b)) shared += Math.min(n, ga.get(g) ?? 0);
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

/** How many hint lines a not-found error shows. */
export const CLOSEST_LINES_SHOWN = 3;
const MIN_SIMILARITY = 0.4;

/** The file lines most like the first non-blank line of `oldText`, as `  N: text`, best first. */
export function closestLines(text: string, oldText: string): string[] {
  const probe = foldText(oldText.split("\n").find((l) => l.trim() !== "") ?? "").folded.trim();
  if (probe === "") return [];
  return text
    .split("\n")
    .map((line, index) => ({ line, index, score: similarity(foldText(line).folded.trim(), probe) }))
    .filter((c) => c.score >= MIN_SIMILARITY)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, CLOSEST_LINES_SHOWN)
    .map((c) => `  ${c.index + 1}: ${c.line}`);
}
