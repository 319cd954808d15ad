/** Options shared by the commands that run a spec: which spec, preset and parameters, and output. */
import { availableParallelism } from 'node:os';
import type { Argv } from 'yargs';
import { UserError } from '../../run/userError.ts';
import { CHECKPOINT_STORE_FORMS, s3Location, s3Url } from '../../engine/cluster/checkpointStore.ts';

/** Which spec, preset and parameters. */
export function specArguments(y: Argv): Argv {
  return y
    .positional('spec', { type: 'string', describe: 'A bundled spec name (kmc list) or the path of your own .ts/.js spec module' })
    .option('preset', { type: 'string', describe: 'A named parameter set of the spec (kmc list shows them)' })
    .option('param', { type: 'string', array: true, default: [], describe: 'Set a parameter: NAME=VALUE (repeatable)' });
}

/** The spec's arguments and a check's output options. */
export function specOptions(y: Argv): Argv {
  return specArguments(y)
    .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object on stdout' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No progress display' })
    .option('out', { type: 'string', describe: 'Folder to write the counterexample to (ITF, text and pictures)' });
}

/** `--memory-budget 8G`, `512M`, or bytes. */
export function parseBytes(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]i?B?|B)?$/i.exec(String(raw).trim());
  if (!m) throw new UserError(`--memory-budget takes a size such as 512M, 8G or a number of bytes; got '${String(raw)}'.`);
  const unit = (m[2] ?? 'B').toUpperCase()[0]!;
  const scale = { B: 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[unit] ?? 1;
  const bytes = Math.round(Number(m[1]) * scale);
  if (bytes < MIN_MEMORY_BUDGET) {
    throw new UserError(
      `--memory-budget ${String(raw)} is below what a search needs to start: Node.js and kmc's first tables take about ${MIN_MEMORY_BUDGET / 2 ** 20} MB before the first state is stored. Give at least ${MIN_MEMORY_BUDGET / 2 ** 20}M (512M or 8G for a large model), or leave the option out for no budget.`,
    );
  }
  return bytes;
}

/** The least --memory-budget accepted: the heap of Node.js with kmc loaded, and the search's first tables. */
const MIN_MEMORY_BUDGET = 16 * 2 ** 20;

/** A positive whole number option, or a UserError naming the option. */
export function positiveInt(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new UserError(`--${name} takes a whole number of at least 1; got '${String(raw)}'.`);
  return n;
}

export function positiveNumber(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UserError(`--${name} takes a positive number; got '${String(raw)}'.`);
  return n;
}

/** A NATS server's address (`--cluster`, `kmc worker`): nats:// or tls://, host and port; `what` names the option. */
export function natsAddress(what: string, raw: unknown): string {
  const url = String(raw);
  if (!/^(nats|tls):\/\/[^\s/]+$/.test(url)) throw new UserError(`${what} takes the address of a NATS server, such as nats://127.0.0.1:4222 or tls://nats.example:4222; got '${url}'.`);
  return url;
}

/** `--workers N`: at most the machine's cores, since more threads than cores only slow a run down. */
export function workersWithinCores(raw: unknown, cores = availableParallelism()): number | undefined {
  const workers = positiveInt('workers', raw);
  if (workers !== undefined && workers > cores) {
    throw new UserError(`--workers ${workers} is more than the ${cores} cores of this machine; more threads than cores only slow a search down. Use --workers ${cores} or fewer.`);
  }
  return workers;
}

/** A `--checkpoint-store` value: an S3 location in its canonical form, or undefined for `nats` (the run's object store). */
export function checkpointStoreValue(value: string): string | undefined {
  if (value === 'nats') return undefined;
  const location = s3Location(value);
  if (typeof location === 'string') throw new UserError(`--checkpoint-store ${value} names no place for checkpoints: ${location}. It takes ${CHECKPOINT_STORE_FORMS}.`);
  return s3Url(location);
}
