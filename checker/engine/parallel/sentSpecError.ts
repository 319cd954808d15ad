/** A spec error as a worker thread or process sends it (a message carries plain data only), and as it is thrown again on arrival. */
import { SpecError } from '../expander.ts';

export interface SentSpecError {
  readonly phase: SpecError['phase'];
  readonly detail: string;
  readonly cause: string;
}

export function sendSpecError(e: SpecError): SentSpecError {
  return { phase: e.phase, detail: e.detail, cause: e.causeError instanceof Error ? e.causeError.message : String(e.causeError) };
}

/** The error as the search in one thread would have thrown it. */
export function receiveSpecError(sent: SentSpecError): SpecError {
  return new SpecError(sent.phase, sent.detail, new Error(sent.cause));
}
