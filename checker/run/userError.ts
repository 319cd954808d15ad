/**
 * A mistake in what the user asked for (unknown spec, bad parameter, malformed file). The CLI prints the
 * message as one paragraph, without a stack trace, and exits with `exitCode`.
 */
import { ExitCode } from './exitCodes.ts';

export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.Usage,
  ) {
    super(message);
  }
}

/** "a, b or c" for error messages listing the valid choices. */
export function choices(names: readonly string[]): string {
  if (names.length === 0) return '(none)';
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
