/**
 * A counterexample as a message-sequence chart in SVG: one lifeline per broker, voter or controller (every
 * party named by a step's actor, sends or receives), one row per step, an arrow from the step that sent
 * each message to the step that received it (slanted when delivery came later, dashed to an open circle
 * when it never came), crash/restart/timeout marks on the lifelines, and the broken invariant at the foot.
 * Rows carry `data-step` so the HTML report can highlight the current step.
 */
import { messageFlights, type MessageFlight } from './messages.ts';
import { CHAR_W, HEAD_H, HEAD_Y, MAX_GUTTER_CHARS, layoutSequence, markStyle, type ArrowGeometry } from './sequenceLayout.ts';
import { VIOLATION_COLOUR, VIOLATION_FILL, styleOf } from './palette.ts';
import { actionsOf, actorsOf, headlineOf, stepsOf, titleOf, verdictSentence, type Step } from './steps.ts';
import type { ItfTrace } from '../itf/write.ts';
import { truncate } from './value.ts';

export interface SequenceOptions {
  /** Colour order of actions (the state graph's), so both pictures agree; defaults to trace order. */
  readonly actions?: readonly string[];
  /** `labels` (default): each step's number and name at the left; `numbers`: the number only, for a page that lists the steps beside the chart. */
  readonly gutter?: 'labels' | 'numbers';
}

const FONT = `ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace`;

export { markStyle };

export function renderSequenceSvg(itf: ItfTrace, options: SequenceOptions = {}): string {
  const steps = stepsOf(itf);
  const actions = options.actions ?? actionsOf(steps);
  const actors = actorsOf(steps);
  const flights = messageFlights(steps);
  const verdict = itf['#meta']?.verdict;
  const loopPos = loopPositionOf(itf, steps);
  const gutterLabels = options.gutter !== 'numbers';
  const layout = layoutSequence(steps, actors, flights, loopPos, gutterLabels);
  const { width, bands, xOf, laneW, labelX, rowsBottom, footerTop } = layout;
  const footerH = verdict ? 56 : 0;
  const height = Math.round(footerTop + footerH + 8);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="kmc-seq" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(FONT)}" font-size="11" role="img" aria-label="${esc(`Message sequence of ${titleOf(itf)}`)}">`,
  );
  out.push(`<title>${esc(`Message sequence: ${titleOf(itf)}`)}</title>`);
  out.push(`<style>${STYLE}</style>`);
  out.push(`<defs>${arrowMarkers(flights, actions)}${loopPos !== undefined ? LOOP_MARKER : ''}</defs>`);
  out.push(`<rect class="kmc-bg" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text class="kmc-title" x="10" y="18">${esc(truncate(titleOf(itf).length * CHAR_W < width - 20 ? titleOf(itf) : headlineOf(itf), Math.floor((width - 20) / CHAR_W)))}</text>`);
  if (flights.length > 0) {
    const key = flights.some((f) => f.receivedAt === undefined)
      ? 'arrow: sent → received (slanted when delivered later) · dashed to ○: never received'
      : 'arrow: sent → received (slanted when delivered later)';
    out.push(`<text class="kmc-key" x="10" y="33">${esc(truncate(key, Math.floor((width - 20) / CHAR_W)))}</text>`);
  }

  // Rows first, so lifelines, arrows and marks are drawn over their backgrounds.
  steps.forEach((s, pos) => {
    const { top: y, h } = bands[pos]!;
    const inLoop = loopPos !== undefined && pos >= loopPos;
    out.push(`<g class="kmc-step${inLoop ? ' kmc-in-loop' : ''}" data-step="${s.index}">`);
    out.push(`<rect class="kmc-row${pos % 2 ? ' kmc-odd' : ''}" x="0" y="${y}" width="${width}" height="${h}"/>`);
    out.push(`<title>${esc(`${s.index}. ${s.label}`)}</title>`);
    out.push(`<text class="kmc-n" x="10" y="${y + h / 2 + 4}">${s.index}</text>`);
    if (gutterLabels) {
      out.push(
        `<text class="kmc-action" x="${labelX}" y="${y + h / 2 + 4}" fill="${s.index === 0 ? '#333' : styleOf(actions, s.action).colour}">${esc(truncate(s.label, MAX_GUTTER_CHARS))}</text>`,
      );
    }
    out.push('</g>');
  });

  actors.forEach((a) => {
    const x = xOf.get(a)!;
    const w = Math.min(laneW - 12, Math.max(60, a.length * CHAR_W + 20));
    out.push(`<g class="kmc-actor" data-actor="${esc(a)}">`);
    out.push(`<line class="kmc-lifeline" x1="${x}" y1="${HEAD_Y + HEAD_H}" x2="${x}" y2="${rowsBottom + 8}"/>`);
    out.push(`<rect class="kmc-head" x="${x - w / 2}" y="${HEAD_Y}" width="${w}" height="${HEAD_H}" rx="5"/>`);
    out.push(`<text class="kmc-head-text" x="${x}" y="${HEAD_Y + HEAD_H / 2 + 4}">${esc(truncate(a, Math.floor((w - 10) / CHAR_W)))}</text>`);
    out.push('</g>');
  });

  // Activations on the acting party's lifeline, then its marks, each on its own row.
  steps.forEach((s, pos) => {
    if (s.actor === undefined) return;
    const x = xOf.get(s.actor)!;
    const { top, h } = bands[pos]!;
    const colour = styleOf(actions, s.action).colour;
    out.push(`<g class="kmc-activation" data-step="${s.index}"><rect x="${x - 5}" y="${top + 6}" width="10" height="${h - 12}" rx="2" fill="${colour}" fill-opacity="0.85"/><title>${esc(`${s.actor}: ${s.label}`)}</title></g>`);
  });
  for (const { pos, mark, label } of layout.marks) {
    const s = steps[pos]!;
    out.push(
      `<g class="kmc-mark" data-step="${s.index}" data-mark="${esc(mark)}"><title>${esc(`${s.actor}: ${mark}`)}</title><text x="${label.x}" y="${label.y}" fill="${markStyle(mark).colour}" font-weight="bold">${esc(label.text)}</text></g>`,
    );
  }
  for (const a of layout.arrows) out.push(messageArrow(a, steps, actions));

  if (layout.loop) {
    const { d, label, pos } = layout.loop;
    const k = steps[pos]!.index;
    out.push(`<g class="kmc-loop" data-loop="${k}"><title>${esc(`From step ${k} on, the trace repeats forever`)}</title>`);
    out.push(`<path d="${d}" fill="none" stroke="${LOOP_COLOUR}" stroke-width="1.8" stroke-dasharray="6 3" marker-end="url(#kmc-loop-arrow)"/>`);
    out.push(`<text x="${label.x}" y="${label.y}" fill="${LOOP_COLOUR}" font-weight="bold">${esc(label.text)}</text></g>`);
  }

  if (verdict) {
    const y = footerTop;
    const lastStep = steps[steps.length - 1]!.index;
    out.push(`<g class="kmc-verdict" data-property="${esc(verdict.property)}">`);
    out.push(`<rect x="8" y="${y}" width="${width - 16}" height="${footerH - 8}" rx="6" fill="${VIOLATION_FILL}" stroke="${VIOLATION_COLOUR}" stroke-width="1.5"/>`);
    out.push(`<text x="18" y="${y + 19}" fill="#7a0c0c" font-weight="bold">${esc(truncate(`✗ ${verdictSentence(verdict, lastStep).split(':')[0]}`, Math.floor((width - 40) / CHAR_W)))}</text>`);
    out.push(`<text x="18" y="${y + 36}" fill="#7a0c0c">${esc(truncate(verdict.description, Math.floor((width - 40) / CHAR_W)))}</text>`);
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const LOOP_COLOUR = '#6c3483';
const LOOP_MARKER = `<marker id="kmc-loop-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${LOOP_COLOUR}"/></marker>`;

/** The trace position a lasso repeats from (the ITF `loop` state index), if the trace is a lasso. */
export function loopPositionOf(itf: ItfTrace, steps: readonly Step[]): number | undefined {
  const loop = itf.loop;
  if (loop === undefined) return undefined;
  const pos = steps.findIndex((s) => s.index === loop);
  return pos >= 0 ? pos : undefined;
}

function messageArrow({ flight: f, d, label }: ArrowGeometry, steps: readonly Step[], actions: readonly string[]): string {
  const colour = styleOf(actions, f.action).colour;
  const inFlight = f.receivedAt === undefined;
  const markerId = `kmc-arrow-${colour.slice(1)}${inFlight ? '-open' : ''}`;
  const sent = f.sentAt !== undefined ? steps[f.sentAt]!.index : undefined;
  const recv = f.receivedAt !== undefined ? steps[f.receivedAt]!.index : undefined;
  const data = `${sent !== undefined ? ` data-sent="${sent}"` : ''}${recv !== undefined ? ` data-received="${recv}"` : ''}`;
  const title = `${f.message.from} → ${f.message.to}: ${f.message.label}${sent !== undefined ? `, sent at step ${sent}` : ''}${recv !== undefined ? `, received at step ${recv}` : ', never received'}`;
  const dash = inFlight ? ' stroke-dasharray="5 4"' : '';
  return [
    `<g class="kmc-msg${inFlight ? ' kmc-in-flight' : ''}"${data} data-from="${esc(f.message.from)}" data-to="${esc(f.message.to)}">`,
    `<title>${esc(title)}</title>`,
    `<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.6"${dash} marker-end="url(#${markerId})"/>`,
    `<text class="kmc-msg-label" x="${label.x}" y="${label.y}" fill="${colour}">${esc(label.text)}</text>`,
    '</g>',
  ].join('');
}

function arrowMarkers(flights: readonly MessageFlight[], actions: readonly string[]): string {
  const wanted = new Set<string>();
  for (const f of flights) wanted.add(`${styleOf(actions, f.action).colour}${f.receivedAt === undefined ? '-open' : ''}`);
  return [...wanted]
    .map((w) => {
      const open = w.endsWith('-open');
      const colour = open ? w.slice(0, -5) : w;
      const id = `kmc-arrow-${colour.slice(1)}${open ? '-open' : ''}`;
      return open
        ? `<marker id="${id}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="7" markerHeight="7" orient="auto"><circle cx="5" cy="5" r="3.5" fill="#ffffff" stroke="${colour}" stroke-width="1.6"/></marker>`
        : `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${colour}"/></marker>`;
    })
    .join('');
}

const STYLE = [
  '.kmc-seq .kmc-title{font-weight:bold;font-size:12px;fill:#222}',
  '.kmc-seq .kmc-key{fill:#777;font-size:10px}',
  '.kmc-seq .kmc-row{fill:#ffffff}',
  '.kmc-seq .kmc-row.kmc-odd{fill:#f7f8fa}',
  '.kmc-seq .kmc-step.kmc-current .kmc-row{fill:#fff3bf}',
  '.kmc-seq .kmc-n{fill:#888;text-anchor:start}',
  '.kmc-seq .kmc-action{font-weight:600}',
  '.kmc-seq .kmc-lifeline{stroke:#9aa3ad;stroke-width:1.2;stroke-dasharray:4 4}',
  '.kmc-seq .kmc-head{fill:#eef2f7;stroke:#4a5a6a;stroke-width:1.2}',
  '.kmc-seq .kmc-head-text{text-anchor:middle;font-weight:bold;fill:#1b2a38}',
  '.kmc-seq .kmc-msg-label{paint-order:stroke;stroke:#ffffff;stroke-width:3px;stroke-linejoin:round}',
  '.kmc-seq .kmc-mark text{paint-order:stroke;stroke:#ffffff;stroke-width:3px}',
].join('');

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
