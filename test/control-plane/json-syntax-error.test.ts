// A malformed JSON body's `json_invalid` entry names the position and message Python's json module
// gives (what FastAPI answers, docs/decisions.md §2), counted in characters, whatever V8's message says.
// The expectations are CPython 3's json.loads, run on the same texts.

import t from 'tap';
import { jsonSyntaxError } from '../../control-plane/http/json-syntax-error.js';

const PYTHON: [string, number | null, string | null][] = [
  ['{"a": 1,}', 8, 'Expecting property name enclosed in double quotes'],
  ['{"a": tru}', 6, 'Expecting value'],
  ['abc', 0, 'Expecting value'],
  ['{"a": "x', 6, 'Unterminated string starting at'],
  ['{"\ud83d\ude00": x}', 6, 'Expecting value'],
  ['{"position 3": x}', 15, 'Expecting value'],
  ['{"a":1} x', 8, 'Extra data'],
  ['[1,]', 3, 'Expecting value'],
  ['{"a" 1}', 5, "Expecting ':' delimiter"],
  ['', 0, 'Expecting value'],
  ['{"a": "\u0001"}', 7, 'Invalid control character at'],
  ['{"\u00e9": x}', 6, 'Expecting value'],
  ['{"a": 01}', 7, "Expecting ',' delimiter"],
  ['{"a": 1.}', 7, "Expecting ',' delimiter"],
  ["{'a': 1}", 1, 'Expecting property name enclosed in double quotes'],
  ['[1 2]', 3, "Expecting ',' delimiter"],
  ['{"a":1 "b":2}', 7, "Expecting ',' delimiter"],
  ['{"a": "\\q"}', 7, 'Invalid \\escape'],
  ['// c\n{}', 0, 'Expecting value'],
  ['{"a": -}', 6, 'Expecting value'],
  ['{"a": 1e}', 7, "Expecting ',' delimiter"],
  ['  \n {"a": [1, {"b": }]}', 20, 'Expecting value'],
  ['{"\ud834\udd1e\ud834\udd1e": "ok", "b": [1, 2,, 3]}', 24, 'Expecting value'],
  ['{"a": "\\u12G4"}', 8, 'Invalid \\uXXXX escape'],
  ['{"name": "ci",}', 14, 'Expecting property name enclosed in double quotes'],
  ['"abc', 0, 'Unterminated string starting at'],
  ['[]]', 2, 'Extra data'],
  ['{"a": 1}\n\n{"b": 2}', 10, 'Extra data'],
  ['{"a": [1, 2.5e-3, true, false, null, "x\\"\\u00e9"], "b": {}}', null, null],
];

t.test("positions and messages are Python's", async (t) => {
  for (const [text, pos, msg] of PYTHON) {
    t.same(jsonSyntaxError(text), pos === null ? undefined : { pos, msg }, JSON.stringify(text));
    // The scanner agrees with JSON.parse about what is JSON at all.
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    t.equal(parses, pos === null, `${JSON.stringify(text)}: JSON.parse agrees`);
  }
});

t.test('NaN and Infinity, which Python reads and JSON does not, are bad values', async (t) => {
  t.same(jsonSyntaxError('{"a": NaN}'), { pos: 6, msg: 'Expecting value' });
  t.same(jsonSyntaxError('[-Infinity]'), { pos: 1, msg: 'Expecting value' });
});
