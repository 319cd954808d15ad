/** Test helper: `kmc ARGS` through the CLI's main function in the test's own process (no spawn). */
import { main } from './cli.ts';

export interface KmcRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * Runs `kmc ARGS` in this process and returns its exit code and what it wrote. Only strings are
 * captured: the test runner's own reports (serialized, as bytes) pass through. Set FORCE_COLOR=0 before
 * chalk is first loaded for output without colours.
 */
export async function kmcInProcess(...args: string[]): Promise<KmcRun> {
  let stdout = '';
  let stderr = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (typeof chunk === 'string' ? ((stdout += chunk), true) : write.out.call(process.stdout, chunk, ...rest))) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (typeof chunk === 'string' ? ((stderr += chunk), true) : write.err.call(process.stderr, chunk, ...rest))) as typeof process.stderr.write;
  const started = performance.now();
  try {
    const code = await main(args);
    return { code, stdout, stderr, ms: performance.now() - started };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}
