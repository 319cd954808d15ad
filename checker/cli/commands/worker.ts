/** `kmc worker nats://…`: own part of the searches drivers start with `kmc check … --cluster nats://… --owners N`. */
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { UserError } from '../../run/userError.ts';
import { natsAddress } from './commonOptions.ts';

export const workerCommand: KmcCommand = {
  command: 'worker <cluster>',
  describe: 'Wait at a NATS server for work of drivers run with --cluster <cluster> (part of a kmc check … --owners N search, walks of kmc simulate, checks of kmc ci), one run at a time',
  builder: (y) =>
    y
      .positional('cluster', { type: 'string', describe: 'The NATS server with JetStream, e.g. nats://127.0.0.1:4222' })
      .option('once', { type: 'boolean', default: false, describe: 'Exit after one search' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print nothing' }),
  run: async (argv) => {
    const url = natsAddress('kmc worker', argv.cluster);
    const { runWorker } = await import('../../engine/cluster/natsWorker.ts');
    const quiet = Boolean(argv.quiet);
    try {
      await runWorker({ url, once: Boolean(argv.once), log: (line) => quiet || process.stderr.write(`${line}\n`) });
    } catch (e) {
      throw new UserError(`kmc worker cannot reach a NATS server at ${url}: ${e instanceof Error ? e.message : String(e)}. Start one with JetStream on (nats-server -js).`, ExitCode.Cluster);
    }
    return ExitCode.Holds;
  },
};
