/**
 * `kmc layout suggest <spec>`: the layout declaration for a spec kept on Immutable.js, inferred from the
 * states a search for a while builds (checker/layout/suggest.ts), printed to paste into the spec.
 */
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { prepareCheck } from '../../run/runCheck.ts';
import { UserError } from '../../run/userError.ts';
import { fmt } from '../progressDisplay.ts';
import { positiveInt, positiveNumber, specArguments } from './commonOptions.ts';
import { suggest } from '../../layout/suggest.ts';
import { ShapeError } from '../../layout/shape.ts';

export const layoutCommand: KmcCommand = {
  command: 'layout <what> <spec>',
  describe: "Suggest a state layout for a spec kept on Immutable.js: 'kmc layout suggest SPEC [--preset P]' explores it for a while and prints the declaration to paste",
  builder: (y) =>
    specArguments(y.positional('what', { type: 'string', describe: 'suggest' }))
      .option('max-states', { type: 'string', default: '200000', describe: 'Most distinct states to explore' })
      .option('time-limit', { type: 'string', default: '30', describe: 'Most seconds to explore' }),
  run: async (argv) => {
    if (argv.what !== 'suggest') throw new UserError(`Unknown layout command '${String(argv.what)}'. kmc layout has one: suggest (kmc layout suggest SPEC [--preset P]).`);
    const prepared = await prepareCheck({
      spec: String(argv.spec),
      ...(argv.preset !== undefined ? { preset: String(argv.preset) } : {}),
      params: ((argv.param as unknown[] | undefined) ?? []).map(String),
    });
    const limits = { maxStates: positiveInt('max-states', argv['max-states']) ?? 200_000, timeSeconds: positiveNumber('time-limit', argv['time-limit']) ?? 30 };
    let s: Awaited<ReturnType<typeof suggest>>;
    try {
      s = await suggest(prepared.model, limits);
    } catch (e) {
      if (e instanceof ShapeError) throw new UserError(`kmc layout suggest cannot lay out ${prepared.label.spec}'s states: ${e.message}.`);
      throw e;
    }
    const how = s.complete
      ? `every reachable state (${fmt(s.explored)} within the model, ${fmt(s.observed)} built): the bounds are exact`
      : `${fmt(s.explored)} states explored before the limit (${fmt(s.observed)} built): each bound is one more than seen`;
    const header = [
      `// kmc layout suggest: the layout of ${prepared.label.spec}${prepared.label.preset ? ` (preset ${prepared.label.preset})` : ''}, from ${how}.`,
      ...s.margins.map((m) => `//   margin: ${m}`),
      '// Check the bounds against the model: a bound the search did not reach is a spec error naming the field.',
    ];
    process.stdout.write(`${header.join('\n')}\n${s.code}`);
    return ExitCode.Holds;
  },
};
