/** A spec error as a worker thread or process sends it (a message carries plain data only), and as it is thrown again on arrival. */
import { SpecError, StepViolation } from '../expander.ts';

export interface SentSpecError {
  readonly phase: SpecError['phase'];
  readonly detail: string;
  readonly cause: string;
  /** A step property's violation (StepViolation): which, and the step. */
  readonly step?: { readonly property: number; readonly propertyName: string; readonly action: number; readonly ordinal: number };
}

export function sendSpecError(e: SpecError): SentSpecError {
  const step = e instanceof StepViolation ? { step: { property: e.property, propertyName: e.propertyName, action: e.action, ordinal: e.ordinal } } : {};
  return { phase: e.phase, detail: e.detail, cause: e.causeError instanceof Error ? e.causeError.message : String(e.causeError), ...step };
}

/** The error as the search in one thread would have thrown it. */
export function receiveSpecError(sent: SentSpecError): SpecError {
  if (sent.step) return new StepViolation(sent.step.property, sent.step.propertyName, sent.step.action, sent.step.ordinal);
  return new SpecError(sent.phase, sent.detail, new Error(sent.cause));
}
