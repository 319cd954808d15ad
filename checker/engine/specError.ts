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
