// Writes tests/trim/js_trim.json: (string, string.trim()) rows where the result is what
// JavaScript itself answers, for pedelec._text.js_trim (the "non-empty after trim" rules of the
// TypeScript SDK, e.g. normalizeSkillsInput's `description.trim().length === 0`).
//
// Run with node (20 or later): `node tests/trim/gen_js_trim.mjs`. The suite reads the committed
// JSON and never needs node.
//
// Rows: every code point that trim() removes on its own (a full scan, so the table is the
// whole set), then every code point Python's str.isspace() calls whitespace, then mixed strings
// (whitespace at both ends, inside, astral text).

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const rows = [];
const seen = new Set();
const add = (text) => {
  if (!seen.has(text)) {
    seen.add(text);
    rows.push([text, text.trim()]);
  }
};

for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates: not text, and never trimmed
  const text = String.fromCodePoint(cp);
  if (text.trim() === "") add(text);
}

// Python's str.isspace() set (CPython: bidirectional class WS, B or S, or category Zs), which
// holds the information separators U+001C..U+001F and NEL that JavaScript keeps.
for (const cp of [0x1c, 0x1d, 0x1e, 0x1f, 0x85]) add(String.fromCodePoint(cp));

for (const text of [
  "",
  "a",
  " a ",
  "\ufeffabc\ufeff",
  "\u00a0x\u3000",
  "\x1c x \x1c",
  "\u2028\u2029a\r\n",
  "\x85abc\x85",
  "\ufeff\x85",
  "\u180e", // Mongolian vowel separator: Zs until Unicode 6.3, not whitespace since
  "\u200b", // zero width space: a format character, not whitespace
  "\u2060",
  " \u{1f600} ",
  "a \t b",
]) {
  add(text);
}

// One row a line, everything outside printable ASCII escaped, so the file reads in a review.
const ascii = (value) =>
  JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
const here = dirname(fileURLToPath(import.meta.url));
const head = `{"node": ${ascii(process.version)}, "unicode": ${ascii(process.versions.unicode)},`;
const body = rows.map((row) => ` ${ascii(row)}`).join(",\n");
writeFileSync(join(here, "js_trim.json"), `${head}\n"rows": [\n${body}\n]}\n`);
console.log(`wrote ${rows.length} rows`);
