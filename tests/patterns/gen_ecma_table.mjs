// Writes tests/patterns/ecma_table.json: (pattern, string, verdict) rows where the verdict is
// what JavaScript itself answers, `new RegExp(pattern, "u").test(string)`.
//
// Run with node (20 or later): `node tests/patterns/gen_ecma_table.mjs`. The suite reads the
// committed JSON and never needs node.
//
// V8's backtracking engine needs minutes for the polynomially ambiguous patterns on long
// strings (the very cost pedelec must avoid), so strings longer than LONG are answered by V8's
// linear-time engine instead (flag "l", enabled by --enable-experimental-regexp-engine, which
// the script passes to itself). That engine has no u mode; for these patterns (no class
// escapes that differ, no dot on astral text) and these strings (BMP, no surrogates) the u
// flag changes nothing, and the script checks that both engines agree on the short strings.
//
// Every family below crosses its patterns with its strings. A pattern JavaScript refuses (a
// syntax error under the u flag) is dropped here; a pattern the project refuses
// (pedelec.schema._regex.pattern_problem: not portable, not compiling in Python's re, or
// exponentially ambiguous) is kept, because the matcher reads any pattern the project's
// parser reads. The tests decide per row: the matcher is held to every row it supports, the
// schema validator to the rows whose pattern pattern_problem accepts.

import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const LINEAR_FLAG = "--enable-experimental-regexp-engine";
if (!process.execArgv.includes(LINEAR_FLAG)) {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, [LINEAR_FLAG, script], { stdio: "inherit" });
  process.exit(child.status ?? 1);
}
const LONG = 64;

const single = [
  "", "a", "Z", "5", "_", "-", ".", " ", "\t", "\n", "\r", "\v", "\f", "\b", "\0",
  "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f",
  "\u205f", "\u3000", "\ufeff", "\u00e9", "\u0664", "\u212a", "\u{1F600}", "\u{1F64F}",
  "\u{10FFFF}", "ab", "a b", "1a",
];

const families = [
  {
    name: "character class escapes, inside and outside classes",
    patterns: [
      "^\\s$", "^\\S$", "^\\d$", "^\\D$", "^\\w$", "^\\W$", "^.$", "\\s", "\\S",
      "^[\\s]$", "^[^\\s]$", "^[\\S]$", "^[^\\S]$", "^[a-z\\S]$", "^[^a-z\\S]$",
      "^[\\d]$", "^[\\D]$", "^[^\\d]$", "^[^\\D]$", "^[\\w]$", "^[\\W]$", "^[^\\w]$",
      "^[^\\W]$", "^[\\s\\S]$", "^[\\w\\s]$", "^[^\\w\\s]$", "^[a-f\\d]$", "^[\\D0]$",
      "^[\\W_]$", "^[\\S\\s]+$", "^[.]$", "^[^.]$", "^[\\-]$", "^[\\w-]$", "^[-\\d]$",
      "^[\\b]$", "^\\0$", "^[\\0]$", "^[\\u00a0]$", "^[^\\u00a0]$", "^[\\x00-\\x20]$",
      "^[\\u2000-\\u200a]$", "^[\\s\\d]$", "^[^\\s\\d]$", "^\\S+$", "^\\s+$", "^\\s*$",
      "^[\\uFEFF\\u3000]$",
    ],
    strings: single,
  },
  {
    name: "word boundaries",
    patterns: [
      "\\b", "\\B", "^\\B$", "^\\b$", "\\ba", "a\\b", "\\Ba", "a\\B", "\\b\\w+\\b", "^\\b",
      "\\B$", "\\bcat\\b", "\\Bcat\\B", "[\\b]", "^\\B", "\\b$", "^\\w+\\b", "\\b.\\b",
      "(?:\\B|a)b",
    ],
    strings: [
      "", "a", " ", "a b", "cat", "a cat!", "\u00e9cat", "cats", "concat", "ab", "_", "-",
      "\u{1F600}", "a\u{1F600}", "\b", "b", " b", "\u00e9", "a-b",
    ],
  },
  {
    name: "line terminators with the dot and the anchors",
    patterns: [
      "^.$", "^.*$", "^.+$", "^a$", "a$", "^a", ".", "^$", "^[^]$", "^a.b$", "^.{2}$",
      "^[\\s\\S]*$", "^[^\\n]*$", "^\\n$", "^\\r\\n$", "$", "^", "a$|^b",
    ],
    strings: [
      "", "a", "a\n", "\na", "\n", "\r", "\u2028", "\u2029", "a\r\n", "ab", "a\nb",
      "a\rb", "a\u2028b", "a\u0085b", "\r\n", "b\n", "\u000b", "a\u000cb",
    ],
  },
  {
    name: "astral code points with the dot, classes and counts",
    patterns: [
      "^.$", "^.{2}$", "^.{1,2}$", "^\u{1F600}$", "^\u{1F600}{2}$", "^[\u{1F600}]$",
      "^[\u{1F600}-\u{1F602}]+$", "^\\u{1F600}$", "^[\\u{1F600}-\\u{1F64F}]$", "^[^a]$",
      "^\\S{2}$", "^\\W$", "^(?:\u{1F600}|a){3}$", "^[^\u{1F600}]$", "^\\uD83D\\uDE00$",
      "^\\uD83D", "\\uDE00", "^[\\uD83D\\uDE00]$", "^\\w\\W\\w$", "^[^\\s]{1,3}$",
    ],
    strings: [
      "\u{1F600}", "\u{1F600}\u{1F600}", "a\u{1F600}", "\u{1F601}", "\u{1F602}\u{1F600}",
      "\u{1F64F}", "\u{10FFFF}", "\u{1D7D8}", "a", "aa", "aaa", "", "a\u{1F600}a",
      "\u{1F600}a\u{1F600}", "\u{1F600}\u{1F600}\u{1F600}", "\u{1F600}\u{1F600}\u{1F600}\u{1F600}",
    ],
  },
  {
    name: "counted, greedy and lazy quantifiers",
    patterns: [
      "^a{2}$", "^a{2,}$", "^a{2,3}$", "^a{2,3}?$", "^a{0}$", "^a{0}b$", "^a{0,1}b$", "a{2}",
      "^(?:ab){2}$", "^(?:a|b){1,3}?$", "^a*?$", "^a+?b$", "^a??b$", "^(a|ab)(c|bcd)(d*)$",
      "^(?:a{1,2}){2}$", "^(?:a{2}){0,2}$", "^a{1,}?$", "^(?:a?){3}$", "^(?:a*)*$",
      "^(?:a|b)*?b$", "^a{3}?$", "^(?:ab|a)*$", "b{2,}?", "^[ab]{2}[ab]?$",
    ],
    strings: [
      "", "a", "aa", "aaa", "aaaa", "aaaaa", "b", "ab", "aab", "abab", "ababab", "abcd",
      "ba", "bb", "abb", "aaab", "abc",
    ],
  },
  {
    name: "alternation and groups",
    patterns: [
      "^(?:a|b|)$", "^(a|b)+$", "^(?:cat|dog)s?$", "^((a)|b)$", "a|^b", "^a|b$", "(?:)",
      "^()$", "^(?:a|)+$", "^(?:(?:a|b)c|d)$", "^(a)(b)(c)$", "^(?:a|ab|abc)$",
      "^(?:a|ab)(?:c|bcd)$", "^(?:|a)b$", "^x(?:y|z)*$", "c(?:at|ow)", "^(?:a(?:b(?:c)))$",
    ],
    strings: [
      "", "a", "b", "ab", "ba", "abc", "abcd", "cat", "cats", "dog", "dogs", "cow", "c",
      "d", "bc", "xyzzy", "x", "aab",
    ],
  },
  {
    name: "lookarounds",
    patterns: [
      "^(?=a)", "^(?!a)", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "^(?=.*\\d)(?=.*[a-z])\\w{4,}$",
      "^(?!.*\\s).+$", "^(?=(a+))a*b$", "(?=\\b)a", "^(?:(?!ab).)*$", "(?<=\\d{2})x",
      "^(?=a(?=b))", "(?<=^a)b", "b(?<=ab)", "^(?!$)", "(?=$)", "(?<=a+)b", "(?<!^)b",
      "^(?=[^\\s]*$)", "(?<=\\u{1F600})a", "^(?!\\B)", "^\\w+(?<!_)$",
    ],
    strings: [
      "", "a", "ab", "ba", "b", "abab", "a1", "abc1", "abcd", "1234x", "12x", "aab", "cab",
      "a b", "aaab", "\u{1F600}a", "_a_", "ab_", "1x",
    ],
  },
  {
    name: "backreferences",
    patterns: [
      "^(a)\\1$", "^(a)?\\1$", "^(a)?b\\1$", "^(?:(a)|b)\\1$", "^(?:(a)|b)*\\1$",
      "^(?:(a)|b)+\\1$", "^(a|b)\\1$", "^(a)|\\1b$", "([\"'])\\w*\\1", "^(a*)\\1$",
      "^(\\w)\\1+$", "^(?:(a)|b){2}\\1$", "^(a)(?:b\\1)*$", "^(?:(a)b)*\\1$", "^(a|b)\\1*$",
      "^(?:(a)|(b))+\\1\\2$", "^([ab])(?:\\1c)+$", "^(?:(a)|b)(?:(a)|b)\\1\\2$", "(.)\\1",
      "^(?:(a)|b)?\\1$", "^(a)(b)?\\2\\1$",
    ],
    strings: [
      "", "a", "aa", "b", "ab", "ba", "bb", "aba", "abb", "bab", "aab", "'x'", "\"x'",
      "abaa", "abab", "aaa", "abba", "bbbb", "aaca", "acac", "bcbc", "baba", "aabb",
    ],
  },
  {
    name: "escapes",
    patterns: [
      "^\\u0041$", "^\\u{41}$", "^\\x41$", "^\\u{1F600}$", "^\\t$", "^\\n$", "^\\f\\v$",
      "^\\.$", "^\\/$", "^\\-$", "^\\u00A0$", "^\\cA$", "^\\x7f$", "^[\\x41-\\x43]+$",
      "^\\u{0}$", "^\\\\$", "^\\^\\$$", "^\\(\\)\\[\\]\\{\\}$", "^\\|\\*\\+\\?$",
    ],
    strings: [
      "A", "a", "\u{1F600}", "\t", "\n", "\f\u000b", ".", "/", "-", "\u00a0", "\u0001",
      "\u007f", "ABC", "ABCD", "\0", "\\", "^$", "()[]{}", "|*+?", "",
    ],
  },
];

const polynomial = [
  "^\\w*\\s*\\w*\\s*\\w*\\s*\\w*$",
  "^\\d*\\d*\\d*\\d*$",
  "^(?:\\w+\\s?)(?:\\w+\\s?)(?:\\w+\\s?)(?:\\w+\\s?)$",
  "^.*.*.*.*.*.*.*.*x$",
];
families.push({
  name: "polynomially ambiguous patterns on long adversarial strings",
  linear: true,
  patterns: polynomial,
  strings: [
    "", "x", "a b c d", "1234", "a".repeat(1023) + "!", "1".repeat(1023) + "a",
    "a".repeat(1023) + "x", "ab ".repeat(341) + "!", "a".repeat(1024), "1".repeat(1024),
    "a b ".repeat(256), "\u00a0".repeat(1024),
  ],
});

const rows = [];
const refused = [];
for (const family of families) {
  for (const pattern of family.patterns) {
    let re;
    try {
      re = new RegExp(pattern, "u");
    } catch {
      refused.push(pattern);
      continue;
    }
    const linear = family.linear ? new RegExp(pattern, "l") : null;
    for (const string of family.strings) {
      let verdict;
      if (linear === null) {
        verdict = re.test(string);
      } else if (string.length > LONG) {
        verdict = linear.test(string);
      } else {
        verdict = re.test(string);
        if (verdict !== linear.test(string)) {
          throw new Error(`the engines disagree on ${pattern} and ${JSON.stringify(string)}`);
        }
      }
      rows.push([pattern, string, verdict]);
    }
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const table = {
  about: "new RegExp(pattern, 'u').test(string), written by tests/patterns/gen_ecma_table.mjs",
  node: process.version,
  refused_by_javascript: refused,
  rows,
};
writeFileSync(join(here, "ecma_table.json"), JSON.stringify(table, null, 0) + "\n");
console.log(`${rows.length} rows, ${refused.length} patterns JavaScript refuses`);
