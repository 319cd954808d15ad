import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExitCode } from '../run/exitCodes.ts';
import { githubAnnotations, command } from './githubAnnotations.ts';
import { toJUnit } from './junit.ts';
import { toMarkdown } from './markdown.ts';
import { runCi } from './runCi.ts';
import { COUNTER, COUNTER_NO_TOGGLE, tempDir, withoutTimes, writeSuite } from './testSupport.ts';

/** A strict little XML reader: elements, attributes, text; throws on anything not well-formed. */
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function parseXml(xml: string): XmlElement {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`malformed XML at ${i}: ${why}: ${JSON.stringify(xml.slice(i, i + 40))}`);
  };
  const decode = (s: string) => {
    if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(s)) fail(`bad entity in ${JSON.stringify(s.slice(0, 60))}`);
    if (s.includes('<')) fail('< in text');
    return s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  };
  const skipSpace = () => {
    while (/\s/.test(xml[i] ?? '')) i++;
  };
  const element = (): XmlElement => {
    if (xml[i] !== '<') fail('expected <');
    i++;
    const name = /^[A-Za-z_][\w.-]*/.exec(xml.slice(i))?.[0] ?? fail('element name');
    i += name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return { name, attrs, children: [], text: '' };
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      const m = /^([A-Za-z_][\w.-]*)="([^"]*)"/.exec(xml.slice(i)) ?? fail('attribute');
      if (m[1]! in attrs) fail(`duplicate attribute ${m[1]}`);
      attrs[m[1]!] = decode(m[2]!);
      i += m[0].length;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const lt = xml.indexOf('<', i);
      if (lt < 0) fail(`unclosed <${name}>`);
      text += decode(xml.slice(i, lt));
      i = lt;
      if (xml.startsWith(`</${name}>`, i)) {
        i += name.length + 3;
        return { name, attrs, children, text };
      }
      if (xml.startsWith('</', i)) fail(`mismatched close inside <${name}>`);
      children.push(element());
    }
  };
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')) fail('declaration');
  i = xml.indexOf('\n') + 1;
  const root = element();
  skipSpace();
  if (i !== xml.length) fail('content after the root element');
  return root;
}

/** The shape of the common JUnit schema (Jenkins junit-10.xsd), as far as these reports use it. */
function assertJUnitShape(root: XmlElement): void {
  const TESTCASE_CHILDREN = ['skipped', 'error', 'failure', 'system-out', 'system-err'];
  assert.equal(root.name, 'testsuites');
  for (const a of ['tests', 'failures', 'errors', 'time']) assert.match(root.attrs[a] ?? '', /^\d+(\.\d+)?$/, `testsuites@${a}`);
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const suite of root.children) {
    assert.equal(suite.name, 'testsuite');
    assert.ok(suite.attrs.name, 'testsuite@name');
    for (const a of ['tests', 'failures', 'errors', 'skipped', 'time']) assert.match(suite.attrs[a] ?? '', /^\d+(\.\d+)?$/, `testsuite@${a}`);
    const cases = suite.children.filter((c) => c.name === 'testcase');
    assert.equal(cases.length, Number(suite.attrs.tests));
    assert.equal(cases.filter((c) => c.children.some((x) => x.name === 'failure')).length, Number(suite.attrs.failures));
    assert.equal(cases.filter((c) => c.children.some((x) => x.name === 'error')).length, Number(suite.attrs.errors));
    assert.equal(cases.filter((c) => c.children.some((x) => x.name === 'skipped')).length, Number(suite.attrs.skipped));
    for (const c of cases) {
      assert.ok(c.attrs.name && c.attrs.classname, 'testcase@name, @classname');
      assert.match(c.attrs.time ?? '', /^\d+\.\d+$/);
      const order = c.children.map((x) => TESTCASE_CHILDREN.indexOf(x.name));
      assert.ok(order.every((k, j) => k >= 0 && (j === 0 || k >= order[j - 1]!)), `testcase children in schema order: ${c.children.map((x) => x.name)}`);
      for (const f of c.children.filter((x) => x.name === 'failure' || x.name === 'error')) assert.ok(f.attrs.message && f.attrs.type, `${f.name}@message, @type`);
    }
    tests += cases.length;
    failures += Number(suite.attrs.failures);
    errors += Number(suite.attrs.errors);
  }
  assert.deepEqual([Number(root.attrs.tests), Number(root.attrs.failures), Number(root.attrs.errors)], [tests, failures, errors]);
}

const MIXED = `version: 1
checks:
  - spec: twophase
    preset: rm3
    expect: holds
  - name: commit-early <expects> "holds" & fails
    spec: twophase
    preset: rm3-commit-early
    expect: holds
  - spec: ${COUNTER}
    params: { max: 20 }
    budget: { maxStates: 100 }
    expect: holds
  - spec: ${COUNTER}
    params: { bug: decFromZero }
    expect: holds
  - spec: twophase
    preset: rm5
    expect: holds
    skip: too slow today
`;

test('JUnit: one test case per check, the counterexample in the failure, well-formed and in the common schema shape', async () => {
  const r = await runCi({ suitePath: writeSuite(MIXED), lanes: 1 });
  assert.equal(r.exitCode, ExitCode.Violation);
  const xml = toJUnit(r);
  const root = parseXml(xml);
  assertJUnitShape(root);
  assert.deepEqual([root.attrs.tests, root.attrs.failures, root.attrs.errors], ['5', '1', '2']);
  const cases = root.children[0]!.children;
  assert.deepEqual(
    cases.map((c) => [c.attrs.name, c.attrs.classname, c.children.map((x) => `${x.name}${x.attrs.type ? `:${x.attrs.type}` : ''}`)]),
    [
      ['twophase/rm3', 'kmc.twophase', ['system-out']],
      ['commit-early <expects> "holds" & fails', 'kmc.twophase', ['failure:broken', 'system-out']],
      ['counter[max=20]', 'kmc.counter', ['error:budget', 'system-out']],
      ['counter[bug=decFromZero]', 'kmc.counter', ['error:error', 'system-out']],
      ['twophase/rm5', 'kmc.twophase', ['skipped']],
    ],
  );
  const failure = cases[1]!.children[0]!;
  assert.equal(
    failure.attrs.message,
    'commit-early <expects> "holds" & fails: expected holds, got violates TCConsistent: breaks TCConsistent: no resource manager has committed while another has aborted fails after 5 steps',
  );
  // The body is the counterexample as text: every step's action, in order.
  const steps = [...failure.text.matchAll(/^Step \d+ +(\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(steps, ['Init', 'RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg']);
  assert.equal(cases[4]!.children[0]!.attrs.message, 'too slow today');
  assert.equal(cases[0]!.children[0]!.text, 'expected holds; got holds; 288 distinct states, 1146 generated, depth 11');
});

test('JUnit and Markdown: drift that fails the gate is a failure of type drift; allowed drift is only reported', async () => {
  const dir = tempDir();
  const suite = (spec: string) => writeSuite(`version: 1\nchecks:\n  - name: counter\n    spec: ${spec}\n    preset: c3\n    expect: holds\n`, dir);
  await runCi({ suitePath: suite(COUNTER), lanes: 1, updateBaseline: true });
  const suitePath = suite(COUNTER_NO_TOGGLE);
  const drifted = await runCi({ suitePath, lanes: 1 });
  const md = toMarkdown(drifted);
  assert.match(md, /^## ❌ kmc ci: 1 of 1 checks passed; 1 drifted from the baseline$/m);
  assert.match(md, /^\| ❌ \| counter \| holds \| holds \(drift\) \| 16 \| 7 \| [\d.]+ s \|$/m);
  assert.match(md, /\| Check \| Metric \| Baseline \| Now \| Change \| Tolerance \|\n\|---\|---\|--:\|--:\|--:\|--:\|\n\| counter \| distinct states \| 32 \| 16 \| −50\.0% \| ±10% \|\n\| counter \| depth \| 8 \| 7 \| −12\.5% \| ±10% \|/);
  const failing = parseXml(toJUnit(drifted));
  assertJUnitShape(failing);
  const f = failing.children[0]!.children[0]!.children[0]!;
  assert.equal(f.name, 'failure');
  assert.equal(f.attrs.type, 'drift');
  assert.equal(f.attrs.message, 'counter: state space drifted from the baseline: distinct states 32 → 16 (−50.0%); depth 8 → 7 (−12.5%)');
  const allowedRun = await runCi({ suitePath, lanes: 1, allowDrift: true });
  const allowed = parseXml(toJUnit(allowedRun));
  assert.equal(allowed.attrs.failures, '0');
  assert.match(toMarkdown(allowedRun), /^\| ⚠️ \| counter \| holds \| holds \(drift\) \|/m);
  assert.match(toMarkdown(allowedRun), /### State-space drift from the baseline \(reported, not failing\)/);
});

test('Markdown summary: headline, table, reasons, drift and the counterexample folded away', async () => {
  const r = await runCi({ suitePath: writeSuite(MIXED), lanes: 1 });
  const md = withoutTimes(toMarkdown(r)).replace(/`[^`]*kmc\.(suite|baseline)/g, '`DIR/kmc.$1');
  const [head, details, errorDetails] = md.split('<details>');
  assert.equal(
    head,
    `## ❌ kmc ci: 1 of 4 checks passed; 1 verdict differs from the expectation, 1 spec error, 1 ran out of budget (1 skipped)

Suite \`DIR/kmc.suite.yaml\`, T s on 1 lane.

| | Check | Expected | Got | Distinct states | Depth | Time |
|---|---|---|---|--:|--:|--:|
| ✅ | twophase/rm3 | holds | holds | 288 | 11 | T s |
| ❌ | commit-early &lt;expects&gt; "holds" &amp; fails | holds | violates TCConsistent **BROKEN** | 167 | 6 | T s |
| ❌ | counter[max=20] | holds | incomplete (maxStates) **BUDGET** | 100 | 10 | T s |
| ❌ | counter[bug=decFromZero] | holds | error **ERROR** | 1 | 1 | T s |
| ⏭️ | twophase/rm5 | holds | skipped **skipped** |  |  |  |

### Verdicts that differ from the suite

- **commit-early &lt;expects&gt; "holds" &amp; fails**: breaks TCConsistent: no resource manager has committed while another has aborted fails after 5 steps

### Spec errors

- **counter[bug=decFromZero]**: the spec threw in an initial state: Dec: effect threw: Dec on an empty counter

### Out of budget

- **counter[max=20]**: ran out of its state budget (100 states) before the search finished; raise the budget, or mark the check bounded if exploring part of the state space is enough

_No baseline file (\`DIR/kmc.baseline.json\`): drift is not checked. Create it with \`kmc ci --update-baseline\`._

`,
  );
  assert.match(details!, /^<summary>Counterexample for commit-early &lt;expects&gt; "holds" &amp; fails \(5 steps\)<\/summary>\n\n```text\n[\s\S]*RMRcvCommitMsg[\s\S]*\n```\n\n<\/details>\n\n$/);
  assert.equal(
    errorDetails,
    '<summary>Trace to the spec error in counter[bug=decFromZero] (0 steps)</summary>\n\n```text\nStep 0  Init\n  x = 0\n  y = 0\n  flag = false\nError: Dec: effect threw: Dec on an empty counter\n```\n\n</details>\n',
  );
});

test('GitHub annotations: one error per failing check on its suite line, properties escaped', async () => {
  const r = await runCi({ suitePath: writeSuite(MIXED), lanes: 1 });
  const lines = githubAnnotations(r).map((l) => l.replace(/file=[^,]*kmc\.suite\.yaml/, 'file=S'));
  assert.deepEqual(lines, [
    '::error file=S,line=6,title=kmc ci%3A commit-early <expects> "holds" & fails%3A expected holds%2C got violates TCConsistent::breaks TCConsistent: no resource manager has committed while another has aborted fails after 5 steps',
    '::error file=S,line=10,title=kmc ci%3A counter[max=20]%3A expected holds%2C got incomplete (maxStates)::ran out of its state budget (100 states) before the search finished; raise the budget, or mark the check bounded if exploring part of the state space is enough',
    '::error file=S,line=14,title=kmc ci%3A counter[bug=decFromZero]%3A expected holds%2C got error::the spec threw in an initial state: Dec: effect threw: Dec on an empty counter',
  ]);
  assert.equal(command('warning', { title: 'a,b:c' }, '50%\nnext'), '::warning title=a%2Cb%3Ac::50%25%0Anext');
});
