/**
 * `kmc`: wires the subcommands into yargs. The only place that sets the process exit code; user mistakes
 * are printed as one paragraph without a stack trace (with --json, as one JSON object on stdout too).
 * `--version`, `--help` and unknown commands are answered before yargs or any command is loaded.
 */
import { COMMANDS, COMMAND_NAMES } from './commandIndex.ts';
import { closest } from '../run/closest.ts';
import { ExitCode } from '../run/exitCodes.ts';
import { UserError, choices } from '../run/userError.ts';
import { kmcVersion } from './version.ts';
import { withSignalHandlers } from './commands/interrupt.ts';

const out = (text: string) => process.stdout.write(text);

export async function main(args: readonly string[]): Promise<ExitCode> {
  const json = args.includes('--json');
  try {
    return await withSignalHandlers(() => dispatch(args));
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    if (json) out(`${JSON.stringify({ status: 'error', message: e.message })}\n`);
    const { default: chalk } = await import('chalk');
    process.stderr.write(`${chalk.red('error:')} ${e.message}\n`);
    return e.exitCode;
  }
}

async function dispatch(args: readonly string[]): Promise<ExitCode> {
  const [first] = args;
  if (args.length === 1 && (first === '--version' || first === '-v')) {
    out(`${kmcVersion()}\n`);
    return ExitCode.Holds;
  }
  if (args.length === 1 && (first === '--help' || first === '-h')) {
    out(overview());
    return ExitCode.Holds;
  }
  const named = args.find((a) => !a.startsWith('-'));
  if (named === undefined) throw new UserError(`Name a command: ${choices(COMMAND_NAMES)} (kmc --help lists them).`);
  const entry = COMMANDS[named];
  if (entry === undefined) {
    const near = closest(named, COMMAND_NAMES);
    throw new UserError(`Unknown command '${named}'${near ? ` (did you mean '${near}'?)` : ''}. The commands are ${choices(COMMAND_NAMES)}; kmc --help describes them.`);
  }
  const cmd = await entry.load();
  const rest = args.filter((a) => a !== named);
  if (cmd.plainFlags && rest.every((a) => cmd.plainFlags!.includes(a))) {
    return cmd.run(Object.fromEntries(cmd.plainFlags.map((f) => [f.replace(/^--/, ''), rest.includes(f)])));
  }
  const { default: yargs } = await import('yargs');
  let exitCode: ExitCode = ExitCode.Holds;
  const parser = yargs(args as string[])
    .scriptName('kmc')
    .usage('$0 <command> [options]\n\nAn explicit-state model checker for Kafka protocol designs.')
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      if (error instanceof UserError) throw error;
      throw new UserError(`${withSuggestion(message ?? error?.message ?? 'invalid command line', parser as unknown as OptionsOf)} (kmc ${named} --help lists the options)`);
    })
    .command(cmd.command, cmd.describe, cmd.builder, async (argv) => {
      exitCode = await cmd.run(argv as Record<string, unknown>);
    });
  // yargs renders the command's whole help each time it starts the command's handler, in case the handler
  // asks for it; kmc's handlers never do, and the rendering (string widths, wrapping to the terminal) was
  // a tenth of a short check's time. `--help` renders it as before.
  const usage = (parser as unknown as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage !== undefined) usage.cacheHelpMessage = () => {};
  await parser.parseAsync();
  return exitCode;
}

/** The part of yargs's internals that renders a command's help ahead of time. */
type YargsInternals = { getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage(): void } } };

/** yargs's "Unknown argument: presett" with the nearest option it knows. */
type OptionsOf = { getOptions(): { key: Record<string, unknown> } } | undefined;

function withSuggestion(message: string, y: OptionsOf): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (!unknown || y === undefined) return message;
  const known = Object.keys(y.getOptions().key).filter((k) => k.length > 1 && k !== '$0');
  const hints = unknown[1]!.split(', ').map((arg) => {
    const near = closest(arg.replace(/^-+/, ''), known);
    return near ? `--${arg.replace(/^-+/, '')} (did you mean --${near}?)` : `--${arg.replace(/^-+/, '')}`;
  });
  return `Unknown option${hints.length > 1 ? 's' : ''} ${hints.join(', ')}`;
}

function overview(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  return [
    'kmc <command> [options]',
    '',
    'An explicit-state model checker for Kafka protocol designs.',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  kmc ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  -h, --help     help (kmc <command> --help for the options of a command)',
    '  -v, --version  the version of kmc',
    '',
    'Exit codes: 0 holds, 1 violation, 2 usage error, 3 the spec threw, 4 incomplete (a limit or a signal), 5 the cluster could not run the search.',
    '',
  ].join('\n');
}

export async function run(): Promise<void> {
  // `kmc list | head`: a reader that stops early is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (e) {
    // Not a user mistake: a bug in kmc itself. Keep the stack for the report.
    process.stderr.write(`kmc internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = ExitCode.Usage;
  }
  // The command is over, and the process ends as soon as nothing is left running. A handle a library leaves
  // open would keep it running after its answer (the NATS client keeps a socket after a connect that timed
  // out): this timer, which alone keeps nothing alive, then ends it once the output is written.
  setTimeout(endOnceWritten, LINGER_MS).unref();
}

/** How long a finished command's process may wait for its event loop to empty before it is ended. */
const LINGER_MS = 1000;

function endOnceWritten(): void {
  if (process.stdout.writableLength + process.stderr.writableLength > 0) setTimeout(endOnceWritten, 100).unref();
  else process.exit();
}
