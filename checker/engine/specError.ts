/** An error in the spec's own code (init, params, a guard, an effect, a view, a property, the constraint), named by where it happened. */
export class SpecError extends Error {
  constructor(
    readonly phase: 'init' | 'params' | 'enabled' | 'next' | 'view' | 'property' | 'constraint',
    readonly detail: string,
    readonly causeError: unknown,
  ) {
    super(`${detail}: ${causeError instanceof Error ? causeError.message : String(causeError)}`);
  }
}

/**
 * A step that breaks a step property (`everyStep`), thrown from the visit of the successor it leads to.
 * Every search stops there as it stops where a step threw (at the state before the step, with the
 * successors up to this one generated), so each engine, in threads or processes, ends where the search in
 * one thread ends; the verdict then names the property and adds the step to the trace (check.ts).
 */
export class StepViolation extends SpecError {
  constructor(
    /** Its index among the model's step properties (Expander.stepProperties). */
    readonly property: number,
    readonly propertyName: string,
    /** The step: its action's index and the ordinal of its parameters. */
    readonly action: number,
    readonly ordinal: number,
  ) {
    super('property', `step property ${propertyName} is violated`, new Error(`a step by action #${action} breaks it`));
  }
}
