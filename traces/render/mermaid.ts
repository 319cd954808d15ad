/**
 * The message-sequence view as Mermaid `sequenceDiagram` text, for pasting into a KIP, a PR or a GitHub
 * comment. Mermaid arrows are instantaneous, so a message is drawn when it is sent (dotted with an open
 * end when it is never received) and the receiving step's note says what it received.
 */
import type { ItfTrace } from '../itf/write.ts';
import { messageFlights } from './messages.ts';
import { loopPositionOf, markStyle } from './sequence.ts';
import { actorsOf, stepsOf, titleOf, verdictSentence } from './steps.ts';

export function renderMermaid(itf: ItfTrace): string {
  const steps = stepsOf(itf);
  const actors = actorsOf(steps);
  const parties = actors.length > 0 ? actors : ['trace'];
  const id = new Map(parties.map((a, i) => [a, `p${i}`]));
  const all = parties.length > 1 ? `${id.get(parties[0]!)},${id.get(parties[parties.length - 1]!)}` : id.get(parties[0]!)!;
  const flights = messageFlights(steps);
  const lines = ['sequenceDiagram', `  title ${text(titleOf(itf))}`];
  for (const a of parties) lines.push(`  participant ${id.get(a)} as ${text(a)}`);
  steps.forEach((s, pos) => {
    const where = s.actor !== undefined ? id.get(s.actor)! : all;
    const received = flights.filter((f) => f.receivedAt === pos);
    // A step named in the spec's words already says what it received.
    const heard = s.label !== s.call ? [] : received.map((f) => `${f.message.label} from ${f.message.from}`);
    lines.push(`  Note over ${where}: ${text(`${s.index}. ${s.label}${heard.length ? ` ← ${heard.join(', ')}` : ''}`)}`);
    // Receives with no send in the trace have nowhere else to be drawn.
    for (const f of received.filter((f) => f.sentAt === undefined)) {
      lines.push(`  ${id.get(f.message.from)}-)${id.get(f.message.to)}: ${text(f.message.label)}`);
    }
    for (const mark of s.marks) lines.push(`  Note over ${where}: ${text(`${markStyle(mark).glyph} ${mark}`)}`);
    for (const f of flights.filter((f) => f.sentAt === pos)) {
      const arrow = f.receivedAt === undefined ? '--)' : '-)';
      const label = f.receivedAt === undefined ? `${f.message.label} (never received)` : `${f.message.label} (received at step ${steps[f.receivedAt]!.index})`;
      lines.push(`  ${id.get(f.message.from)}${arrow}${id.get(f.message.to)}: ${text(label)}`);
    }
  });
  const loop = loopPositionOf(itf, steps);
  if (loop !== undefined) lines.push(`  Note over ${all}: ${text(`↻ after step ${steps[steps.length - 1]!.index} the trace repeats forever from step ${steps[loop]!.index}`)}`);
  const verdict = itf['#meta']?.verdict;
  if (verdict) lines.push(`  Note over ${all}: ${text(`✗ ${verdictSentence(verdict, steps[steps.length - 1]!.index)}`)}`);
  return `${lines.join('\n')}\n`;
}

/** Mermaid text: `;` and `#` end or escape statements, so they are written as entity codes. */
function text(s: string): string {
  return s.replace(/[#;]/g, (c) => (c === '#' ? '#35;' : '#59;')).replace(/\r?\n/g, '<br/>');
}
