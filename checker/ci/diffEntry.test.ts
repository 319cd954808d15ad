import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExitCode } from '../run/exitCodes.ts';
import { loadSuite } from './loadSuite.ts';
import { InputFileError } from './sourceFile.ts';
import { runCi } from './runCi.ts';
import { writeSuite } from './testSupport.ts';

const suite = (fixes: string, breaks: string) => `version: 1
checks:
  - spec: twophase
    preset: rm3
    expect: holds
diffs:
  - name: tm waits for every Prepared
    spec: twophase
    a: { preset: rm3, params: { bug: tmCommitEarly } }
    b: { preset: rm3 }
    expect: { fixes: [${fixes}], breaks: [${breaks}] }
`;

test('a suite diff whose fixes and breaks match passes the gate', async () => {
  const r = await runCi({ suitePath: writeSuite(suite('TCConsistent', '')), lanes: 1 });
  assert.equal(r.exitCode, ExitCode.Holds);
  assert.deepEqual(
    r.diffs?.map((d) => [d.diff.name, d.pass, d.got, d.message]),
    [['tm waits for every Prepared', true, 'fixes TCConsistent; breaks nothing', 'B fixes TCConsistent; breaks nothing, as expected']],
  );
});

test('a suite diff that fixes something other than it says fails the gate with what it did', async () => {
  const r = await runCi({ suitePath: writeSuite(suite('', 'TCConsistent')), lanes: 1 });
  assert.equal(r.exitCode, ExitCode.Violation);
  assert.deepEqual(
    r.diffs?.map((d) => [d.pass, d.message]),
    [[false, 'B fixes TCConsistent; breaks nothing; the suite expects B to fix nothing; break TCConsistent']],
  );
});

test('a malformed diff entry is reported with its line and field', async () => {
  const bad = `version: 1
checks:
  - spec: twophase
    preset: rm3
    expect: holds
diffs:
  - spec: twophase
    a: { preset: rm3 }
    expect: { fixes: TCConsistent }
`;
  await assert.rejects(loadSuite(writeSuite(bad)), (e: unknown) => {
    assert.ok(e instanceof InputFileError, `expected an InputFileError, got ${String(e)}`);
    assert.match(e.message, /kmc.suite.yaml:7:5: diffs\[0\]: missing field 'b'/);
    assert.match(e.message, /kmc.suite.yaml:9:22: diffs\[0\].expect.fixes: expect.fixes must be a list of property names; got string "TCConsistent"/);
    return true;
  });
});
