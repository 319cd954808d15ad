/**
 * `kmc diff <spec> --a 'param=value …' --b 'param=value …'`: checks every property under two variants of a
 * design (two parameter sets, two presets, or two spec modules of the same shape) and shows side by side
 * what B fixes and what it breaks, with each such counterexample replayed on the other variant.
 * Exit 0 when the comparison ran to the end (whatever it found), 4 when a search was incomplete.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { UserError } from '../../run/userError.ts';
import { designDiff, type VariantRequest } from '../../run/designDiff.ts';
import { diffToHtml, diffToJson, diffToMarkdown, diffToText } from '../../diff/format.ts';
import { positiveInt, positiveNumber } from './commonOptions.ts';
import { interruptFlag } from './interrupt.ts';

export const diffCommand: KmcCommand = {
  command: 'diff <spec>',
  describe: 'Check every property under two variants of a design (--a/--b parameters, presets or spec files) and show what B fixes and breaks',
  builder: (y) =>
    y
      .positional('spec', { type: 'string', describe: "A bundled spec name (kmc list) or the path of a spec module (A's, and B's unless --b-spec)" })
      .option('a', { type: 'string', describe: "Variant A's parameters: 'NAME=VALUE NAME=VALUE' (over the preset)" })
      .option('b', { type: 'string', describe: "Variant B's parameters: 'NAME=VALUE NAME=VALUE' (over the preset)" })
      .option('preset', { type: 'string', describe: 'Preset both variants start from' })
      .option('a-preset', { type: 'string', describe: "Variant A's preset (instead of --preset)" })
      .option('b-preset', { type: 'string', describe: "Variant B's preset (instead of --preset)" })
      .option('b-spec', { type: 'string', describe: "Variant B's spec module, when B is another spec of the same shape" })
      .option('param', { type: 'string', array: true, default: [], describe: 'A parameter for both variants: NAME=VALUE (repeatable)' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the comparison as JSON' })
      .option('markdown', { type: 'boolean', default: false, describe: 'Print the comparison as Markdown (for a pull request comment)' })
      .option('html', { type: 'boolean', default: false, describe: 'Write the comparison as an HTML page, the two variants in two columns' })
      .option('out', { type: 'string', describe: 'File to write the comparison to (default: standard output)' })
      .option('max-states', { type: 'string', describe: 'Stop each search after this many distinct states' })
      .option('time-limit', { type: 'string', describe: 'Stop each search after this many seconds' })
      .option('deadlock', { type: 'boolean', describe: 'Report states with no enabled action (default: each preset’s choice, else on)' }),
  run: async (argv) => {
    const formats = (['json', 'markdown', 'html'] as const).filter((f) => argv[f] === true);
    if (formats.length > 1) throw new UserError(`Give at most one of --json, --markdown and --html; got ${formats.map((f) => `--${f}`).join(' and ')}.`);
    const [a, b] = variantRequests(argv);
    const diff = await designDiff(a, b, {
      maxStates: positiveInt('max-states', argv['max-states']),
      timeLimitSeconds: positiveNumber('time-limit', argv['time-limit']),
      ...(argv.deadlock !== undefined ? { deadlock: argv.deadlock as boolean } : {}),
      shouldStop: interruptFlag(),
    });
    const format = formats[0] ?? 'text';
    const text = format === 'json' ? diffToJson(diff) : format === 'markdown' ? diffToMarkdown(diff) : format === 'html' ? diffToHtml(diff) : diffToText(diff);
    if (argv.out === undefined) process.stdout.write(text);
    else {
      const out = String(argv.out);
      try {
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, text);
      } catch (e) {
        throw new UserError(`Cannot write ${out}: ${(e as Error).message}.`);
      }
      process.stderr.write(`Wrote the comparison to ${out}\n`);
    }
    if (diff.a.threw || diff.b.threw) return ExitCode.SpecError;
    return diff.a.complete && diff.b.complete ? ExitCode.Holds : ExitCode.Incomplete;
  },
};

/** `'fourthCondition=none maxEpoch=2'` (spaces or commas between) as NAME=VALUE items. */
export function splitParams(raw: unknown, option: string): string[] {
  if (raw === undefined) return [];
  const items = String(raw).split(/[\s,]+/).filter(Boolean);
  const bad = items.find((i) => !/^[^=]+=.*$/.test(i));
  if (bad !== undefined) throw new UserError(`--${option} takes NAME=VALUE items separated by spaces, e.g. --${option} 'fourthCondition=none maxEpoch=2'; '${bad}' has no '='.`);
  return items;
}

function variantRequests(argv: Record<string, unknown>): [VariantRequest, VariantRequest] {
  const spec = String(argv.spec);
  const common = (argv.param as string[]).map(String);
  const preset = (side: 'a' | 'b') => (argv[`${side}-preset`] ?? argv.preset) as string | undefined;
  const a = splitParams(argv.a, 'a');
  const b = splitParams(argv.b, 'b');
  const bSpec = argv['b-spec'] !== undefined ? String(argv['b-spec']) : spec;
  if (a.length === 0 && b.length === 0 && preset('a') === preset('b') && bSpec === spec) {
    throw new UserError("Nothing tells the two variants apart: give --a and --b parameters ('NAME=VALUE …'), --a-preset and --b-preset, or --b-spec.");
  }
  const req = (name: 'A' | 'B', s: string, p: string | undefined, params: string[]): VariantRequest => ({ name, spec: s, ...(p !== undefined ? { preset: p } : {}), params: [...common, ...params] });
  return [req('A', spec, preset('a'), a), req('B', bSpec, preset('b'), b)];
}
