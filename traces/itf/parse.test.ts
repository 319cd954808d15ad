import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ItfFormatError, parseItf } from './parse.ts';

const rejects = (text: string, message: RegExp) => assert.throws(() => parseItf(text), (e: unknown) => e instanceof ItfFormatError && message.test(e.message));

test('malformed traces are rejected with where and what is wrong', () => {
  rejects('{oops', /not valid JSON/);
  rejects('[]', /top level must be a JSON object with a "states" array, found an array/);
  rejects('{"vars": []}', /"states" must be an array of states, found nothing/);
  rejects('{"states": []}', /"states" is empty/);
  rejects('{"states": [{"#meta": {"action": 3}}]}', /states\[0\]\.#meta\.action must be the action's name \(a string\), found number 3/);
  rejects('{"states": [{"x": 1}, {"#meta": {"sends": [{"from": "a", "to": 3, "label": "m"}]}}]}', /states\[1\]\.#meta\.sends\[0\]\.to must be a string, found number 3/);
  rejects('{"states": [{"x": {"#map": [[1]]}}]}', /states\[0\]\.x\.#map\[0\] must be a \[key, value\] pair/);
  rejects('{"states": [{"x": null}]}', /states\[0\]\.x must be an ITF value .* found null/);
  rejects('{"#meta": {"verdict": {"property": "P"}}, "states": [{}]}', /"#meta\.verdict" must be an object with string fields kind, property and description/);
  rejects('{"states": [{"#meta": {"marks": ["crash", 1]}}]}', /states\[0\]\.#meta\.marks must be an array of strings/);
});

test('plain ITF from Apalache or Quint, without kmc narration, is accepted', () => {
  const t = parseItf('{"vars": ["x"], "states": [{"#meta": {"index": 0}, "x": 0}, {"x": {"#bigint": "1"}, "mbt::actionTaken": "inc"}]}');
  assert.equal(t.states.length, 2);
});
