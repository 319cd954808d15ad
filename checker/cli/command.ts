/** One `kmc` subcommand: a yargs command whose handler returns the process exit code. */
import type { Argv } from 'yargs';
import type { ExitCode } from '../run/exitCodes.ts';

export interface KmcCommand {
  readonly command: string;
  readonly describe: string;
  readonly builder: (yargs: Argv) => Argv;
  /** Runs the command. Throws `UserError` for a user mistake; returns the exit code otherwise. */
  readonly run: (argv: Record<string, unknown>) => Promise<ExitCode>;
  /**
   * Boolean flags that are the command's whole syntax when given alone (`kmc list --json`): such a
   * command line runs without loading the option parser, so that it starts at once.
   */
  readonly plainFlags?: readonly string[];
}
