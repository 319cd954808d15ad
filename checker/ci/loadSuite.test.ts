import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSuite, SUITE_FIELDS } from './loadSuite.ts';
import { InputFileError } from './sourceFile.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const COUNTER = join(FIXTURES, 'counter.ts');

function suiteFile(text: string, name = 'suite.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-suite-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The problems a suite has, as `line:col field: message` (the file prefix checked once per call). */
async function problems(text: string, name = 'suite.yaml'): Promise<string[]> {
  const path = suiteFile(text, name);
  try {
    await loadSuite(path);
  } catch (e) {
    assert.ok(e instanceof InputFileError, `expected an InputFileError, got ${String(e)}`);
    for (const p of e.problems) assert.equal(p.file, path);
    assert.match(e.message, new RegExp(`^The suite ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has`));
    return e.problems.map((p) => `${p.line}:${p.col} ${p.field ? `${p.field}: ` : ''}${p.message}`);
  }
  assert.fail('the suite was accepted');
}

test('a valid suite: defaults merged, names derived, paths relative to the suite file', async () => {
  const path = suiteFile(`version: 1
tolerance: 0.2
defaults:
  budget: { timeSeconds: 30, maxStates: 5000 }
  options: { deadlock: true }
checks:
  - spec: twophase
    preset: rm3
    expect: holds
  - spec: twophase
    preset: rm3-commit-early
    expect: "violates: TCConsistent"
    budget: { maxStates: 1000 }
  - spec: ${COUNTER}
    params: { max: 4 }
    expect: { violates: XWithinMax }
    tolerance: 0
  - name: big
    spec: twophase
    params: { rm: 8 }
    budget: { maxStates: 100 }
    bounded: true
    expect: holds
  - spec: twophase
    preset: rm7
    expect: holds
    skip: preset not written yet
`);
  const suite = await loadSuite(path);
  assert.equal(suite.baselinePath, path.replace(/suite\.yaml$/, 'suite.baseline.json'));
  assert.deepEqual(
    suite.checks.map((c) => [c.name, c.specRef, c.expect, c.budget, c.tolerance, c.bounded, c.line, c.skip]),
    [
      ['twophase/rm3', 'twophase', { verdict: 'holds' }, { timeSeconds: 30, maxStates: 5000 }, 0.2, false, 7, undefined],
      ['twophase/rm3-commit-early', 'twophase', { verdict: 'violates', property: 'TCConsistent' }, { timeSeconds: 30, maxStates: 1000 }, 0.2, false, 10, undefined],
      ['counter[max=4]', COUNTER, { verdict: 'violates', property: 'XWithinMax' }, { timeSeconds: 30, maxStates: 5000 }, 0, false, 14, undefined],
      ['big', 'twophase', { verdict: 'holds' }, { timeSeconds: 30, maxStates: 100 }, 0.2, true, 18, undefined],
      ['twophase/rm7', 'twophase', { verdict: 'holds' }, { timeSeconds: 30, maxStates: 5000 }, 0.2, false, 24, 'preset not written yet'],
    ],
  );
  assert.deepEqual(suite.checks[0]!.options, { deadlock: true });
});

test('a skipped check is not checked against its spec, but a missing spec file is still reported', async () => {
  const suite = await loadSuite(suiteFile('version: 1\nchecks:\n  - spec: twophase\n    preset: rm9\n    expect: holds\n    skip: preset not written yet\n'));
  assert.equal(suite.checks[0]!.skip, 'preset not written yet');
  const [p] = await problems('version: 1\nchecks:\n  - spec: ./nowhere.ts\n    expect: holds\n    skip: later\n');
  assert.match(p!, /^3:11 checks\[0\]\.spec: no spec module at \.\/nowhere\.ts \(looked for \/.*\/nowhere\.ts; paths are relative to the suite file\)$/);
});

test('YAML syntax errors name the line and explain the usual mistake', async () => {
  assert.deepEqual(await problems('version: 1\nchecks:\n  - spec: twophase\n    expect: violates: TCConsistent\n'), [
    '4:13 not valid YAML: Nested mappings are not allowed in compact mappings. To expect a violation write `expect: { violates: Name }` or quote it: `expect: "violates: Name"`',
  ]);
  assert.deepEqual(await problems('version: 1\nversion: 2\nchecks: []\n'), ['2:1 not valid YAML: Map keys must be unique (a key appears twice in the same mapping)']);
});

test('JSON suites are parsed strictly and errors located', async () => {
  assert.deepEqual(await problems('{\n  "version": 1,\n  "checks": [],\n}\n', 'suite.json'), ['4:1 not valid JSON: Expected double-quoted property name']);
  assert.deepEqual(await problems('{\n  "version": 1,\n  "checks": [\n    { "spec": "twophase", "preset": "rm3", "expect": "hold" }\n  ]\n}\n', 'suite.json'), [
    '4:54 checks[0].expect: expected verdict must be holds or violates: <PropertyName>; got string "hold". Write `expect: holds`, or `expect: { violates: PropertyName }` for a known bug',
  ]);
});

test('a JSON suite that gives a key twice is refused, naming each place: JSON.parse would keep the last and drop the checks before it', async () => {
  const check = (name: string) => `{ "name": "${name}", "spec": "twophase", "preset": "rm3", "expect": "holds" }`;
  assert.deepEqual(await problems(`{\n  "version": 1,\n  "checks": [${check('a')}],\n  "checks": [${check('b')}]\n}\n`, 'suite.json'), [
    '4:3 not valid here: Map keys must be unique (JSON keeps only the last; give each key once)',
  ]);
  assert.deepEqual(await problems(`{ "version": 1, "checks": [{ "spec": "twophase", "preset": "rm3", "expect": "holds", "expect": { "violates": "TCConsistent" } }] }\n`, 'suite.json'), [
    '1:86 not valid here: Map keys must be unique (JSON keeps only the last; give each key once)',
  ]);
});

test('shape errors: every problem at once, each with its line, field and a way out', async () => {
  const got = await problems(`version: 2
chekcs: []
checks:
  - spec: twophase
    presett: rm3
    expect: holds
    budget: { maxStates: -1, timeSeconds: ten, maxDepht: 3 }
  - preset: rm3
    expect: holds
  - spec: twophase
    preset: rm3
  - spec: twophase
    preset: rm5
    expect: holds
    bounded: true
    skip: true
`);
  assert.deepEqual(got, [
    '1:10 version: this kmc reads suite version 1; got number 2',
    "2:1 chekcs: unknown field 'chekcs' (did you mean 'checks'?); the fields of a suite are version, baseline, tolerance, defaults, checks or diffs",
    "5:5 checks[0].presett: unknown field 'presett' (did you mean 'preset'?); the fields of a check are name, spec, preset, params, expect, budget, bounded, options, tolerance or skip",
    '7:26 checks[0].budget.maxStates: the distinct-state budget must be a whole number of at least 1; got number -1',
    '7:43 checks[0].budget.timeSeconds: the time budget in seconds must be a number above 0; got string "ten"',
    "7:48 checks[0].budget.maxDepht: unknown field 'maxDepht' (did you mean 'maxDepth'?); the fields of a budget are timeSeconds, maxStates or maxDepth",
    "8:5 checks[1]: missing field 'spec': name a bundled spec (twophase, diehard, kraft, replication or lifecycle) or give the path of your spec module",
    "10:5 checks[2]: missing field 'expect': every check states the verdict it must have; write `expect: holds`, or `expect: { violates: PropertyName }` for a known bug",
    '15:14 checks[3].bounded: a bounded check needs budget.maxStates or budget.maxDepth: a time bound alone would make the verdict depend on the machine',
    '16:11 checks[3].skip: skip takes the reason as text, e.g. skip: "too large for CI"',
  ]);
});

test('a suite without version or checks says what to write', async () => {
  assert.deepEqual(await problems('tolerance: 0.1\n'), [
    "1:1 missing field 'version': start the suite with `version: 1`",
    "1:1 missing field 'checks': list the checks to run, each with spec, preset or params, and expect",
  ]);
  assert.deepEqual(await problems('- spec: twophase\n'), ['1:1 a suite must be a mapping (key: value lines); got a list']);
  assert.deepEqual(await problems('version: 1\nchecks: []\n'), ['2:9 checks: checks must be a non-empty list; got a list']);
});

test('checks are validated against their specs: spec, preset, parameters, expected property, symmetry', async () => {
  const got = await problems(`version: 1
checks:
  - spec: twophose
    expect: holds
  - spec: twophase
    preset: rm4
    expect: holds
  - spec: twophase
    params: { rm: 99, colour: red, bug: maybe }
    expect: holds
  - spec: twophase
    preset: rm3-commit-early
    expect: { violates: Agreement }
  - spec: ${COUNTER}
    preset: c3
    options: { symmetry: true }
    expect: holds
`);
  assert.deepEqual(got, [
    "3:11 checks[0].spec: unknown spec 'twophose': the bundled specs are twophase, diehard, kraft, replication or lifecycle; for your own spec give the path of its module, e.g. ./specs/my-spec.ts",
    "6:13 checks[1].preset: spec twophase has no preset 'rm4'; its presets are rm3, rm5 or rm3-commit-early",
    "9:19 checks[2].params.rm: Parameter rm of twophase must be a whole number from 1 to 10 (number of resource managers); got '99'",
    "9:31 checks[2].params.colour: spec twophase has no parameter 'colour'; its parameters are rm or bug",
    "9:41 checks[2].params.bug: Parameter bug of twophase must be one of none or tmCommitEarly (plant a bug: none, or tmCommitEarly (the TM commits without waiting for every Prepared)); got 'maybe'",
    "13:13 checks[3].expect: spec twophase has no property 'Agreement'; it can violate TCConsistent, TPTypeOK, Committed, Aborted or Deadlock",
    '16:26 checks[4].options.symmetry: spec counter declares no symmetry sets',
  ]);
});

test('two checks with the same name are refused', async () => {
  assert.deepEqual(await problems('version: 1\nchecks:\n  - spec: twophase\n    preset: rm3\n    expect: holds\n  - spec: twophase\n    preset: rm3\n    expect: holds\n'), [
    "6:5 checks[1]: two checks are named 'twophase/rm3' (the other is on line 3); give each check a distinct name",
  ]);
});

test('a missing suite file is a usage error naming it', async () => {
  await assert.rejects(loadSuite('/nonexistent/kmc.suite.yaml'), /Cannot read the suite \/nonexistent\/kmc\.suite\.yaml: no such file\./);
});

test('the JSON Schema and the validator accept the same fields', () => {
  const schema = JSON.parse(readFileSync(new URL('./kmc-suite.schema.json', import.meta.url), 'utf8'));
  const keys = (o: { properties: object }) => Object.keys(o.properties).sort();
  assert.deepEqual(keys(schema), [...SUITE_FIELDS.top].sort());
  assert.deepEqual(keys(schema.properties.defaults), [...SUITE_FIELDS.defaults].sort());
  assert.deepEqual(keys(schema.definitions.check), [...SUITE_FIELDS.check].sort());
  assert.deepEqual(keys(schema.definitions.budget), [...SUITE_FIELDS.budget].sort());
  assert.deepEqual(keys(schema.definitions.options), [...SUITE_FIELDS.options].sort());
});
