/** How the engine and the trace writers recognise a packed value. */
import { View } from './views.ts';

export function isPacked(v: unknown): v is View {
  return v instanceof View;
}
