/**
 * Pairs each message sent with the step that received it, as a message-sequence chart needs. A receive
 * takes the earliest unmatched send with the same sender, receiver and label; a second receive of a
 * message still in the network (TLA+ specs often keep messages in a set) pairs with its latest send.
 * Sends never received are in flight at the end of the trace; receives with no send in the trace are
 * drawn at the step that received them.
 */
import type { Message } from '../../spec/spec.ts';
import type { Step } from './steps.ts';

export interface MessageFlight {
  readonly message: Message;
  /** Step that sent it; absent when the send is not in the trace. */
  readonly sentAt?: number;
  /** Step that received it; absent while it is still in flight at the end. */
  readonly receivedAt?: number;
  /** The action of the sending step (or of the receiving step, when the send is unknown). */
  readonly action: string;
}

const keyOf = (m: Message) => `${m.from}\u0000${m.to}\u0000${m.label}`;

export function messageFlights(steps: readonly Step[]): MessageFlight[] {
  const flights: { message: Message; sentAt?: number; receivedAt?: number; action: string }[] = [];
  const unmatched = new Map<string, number[]>(); // key → indexes into `flights`, oldest first
  const lastSent = new Map<string, number>();
  steps.forEach((step, pos) => {
    // Receives first: a step that receives and then sends a reply with the same label must not pair with itself.
    for (const m of step.receives) {
      const key = keyOf(m);
      const queue = unmatched.get(key);
      const open = queue?.shift();
      if (open !== undefined) {
        flights[open]!.receivedAt = pos;
      } else if (lastSent.has(key)) {
        const sent = flights[lastSent.get(key)!]!;
        flights.push({ message: m, sentAt: sent.sentAt!, receivedAt: pos, action: sent.action });
      } else {
        flights.push({ message: m, receivedAt: pos, action: step.action });
      }
    }
    for (const m of step.sends) {
      const key = keyOf(m);
      flights.push({ message: m, sentAt: pos, action: step.action });
      const i = flights.length - 1;
      unmatched.set(key, [...(unmatched.get(key) ?? []), i]);
      lastSent.set(key, i);
    }
  });
  return flights;
}
