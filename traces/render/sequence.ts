/**
 * A counterexample as a message-sequence chart in SVG: one lifeline per broker, voter or controller (every
 * party named by a step's actor, sends or receives), one row per step, an arrow from the step that sent
 * each message to the step that received it (slanted when delivery came later, dashed to an open circle
 * when it never came), crash/restart/timeout marks on the lifelines, and the broken invariant at the foot.
 * Rows carry `data-step` so the HTML report can highlight the current step.
 */
import { messageFlights, type MessageFlight } from './messages.ts';
import { VIOLATION_COLOUR, VIOLATION_FILL, styleOf } from './palette.ts';
import { actionsOf, actorsOf, headlineOf, stepsOf, titleOf, verdictSentence, type Step } from './steps.ts';
import type { ItfTrace } from '../itf/write.ts';
import { truncate } from './value.ts';

export interface SequenceOptions {
  /** Colour order of actions (the state graph's), so both pictures agree; defaults to trace order. */
  readonly actions?: readonly string[];
}

const FONT = `ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace`;
const CHAR_W = 6.7; // average advance of the 11px monospace font
const ROW_H = 40;
/** Extra height per message or mark beyond the second, so busy steps get room for their arrows. */
const ROW_EXTRA = 13;
const HEAD_Y = 44;
const HEAD_H = 28;
const TOP = HEAD_Y + HEAD_H + 14;
const MAX_GUTTER_CHARS = 38;

interface MarkStyle {
  readonly glyph: string;
  readonly colour: string;
}

/** How a lifeline mark looks: faults in red, recoveries in green, timers in amber. */
export function markStyle(mark: string): MarkStyle {
  const m = mark.toLowerCase();
  if (/crash|fail|kill|fence|shutdown|stop|lost|drop|partition|illegal|error|exception/.test(m)) return { glyph: '✖', colour: '#c0392b' };
  if (/restart|recover|start|rejoin|unfence|heal/.test(m)) return { glyph: '↻', colour: '#1e8449' };
  if (/timeout|timer|expire|elect/.test(m)) return { glyph: '◷', colour: '#b9770e' };
  if (/abort/.test(m)) return { glyph: '⊘', colour: '#c0392b' };
  return { glyph: '◆', colour: '#555555' };
}

export function renderSequenceSvg(itf: ItfTrace, options: SequenceOptions = {}): string {
  const steps = stepsOf(itf);
  const actions = options.actions ?? actionsOf(steps);
  const actors = actorsOf(steps);
  const flights = messageFlights(steps);
  const verdict = itf['#meta']?.verdict;

  const labelX = 10 + 4 * CHAR_W; // room for a three-digit step number
  const longestLabel = Math.max(8, ...steps.map((s) => Math.min(MAX_GUTTER_CHARS, s.label.length)));
  const gutterW = Math.round(labelX + longestLabel * CHAR_W + 16);
  const longestMsg = Math.max(6, ...flights.map((f) => f.message.label.length), ...actors.map((a) => a.length));
  const laneW = Math.round(Math.min(190, Math.max(130, longestMsg * CHAR_W + 36)));
  const lanes = Math.max(1, actors.length);
  const width = gutterW + lanes * laneW + 16;
  const rowTop: number[] = [];
  const rowH = steps.map((s) => ROW_H + ROW_EXTRA * Math.max(0, s.sends.length + s.receives.length + s.marks.length - 2));
  rowH.reduce((y, h, i) => ((rowTop[i] = y), y + h), TOP);
  const rowsBottom = TOP + rowH.reduce((a, b) => a + b, 0);
  const footerH = verdict ? 56 : 0;
  const height = rowsBottom + 18 + footerH + 8;

  const xOf = new Map(actors.map((a, i) => [a, gutterW + laneW * i + laneW / 2]));
  const yOf = (pos: number) => rowTop[pos]! + rowH[pos]! / 2;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="kmc-seq" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(FONT)}" font-size="11" role="img" aria-label="${esc(`Message sequence of ${titleOf(itf)}`)}">`,
  );
  out.push(`<title>${esc(`Message sequence: ${titleOf(itf)}`)}</title>`);
  out.push(`<style>${STYLE}</style>`);
  out.push(`<defs>${arrowMarkers(flights, actions)}</defs>`);
  out.push(`<rect class="kmc-bg" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text class="kmc-title" x="10" y="18">${esc(truncate(titleOf(itf).length * CHAR_W < width - 20 ? titleOf(itf) : headlineOf(itf), Math.floor((width - 20) / CHAR_W)))}</text>`);
  if (flights.length > 0) {
    const key = flights.some((f) => f.receivedAt === undefined)
      ? 'arrow: sent → received (slanted when delivered later) · dashed to ○: never received'
      : 'arrow: sent → received (slanted when delivered later)';
    out.push(`<text class="kmc-key" x="10" y="33">${esc(key)}</text>`);
  }

  // Rows first, so lifelines, arrows and marks are drawn over their backgrounds.
  steps.forEach((s, pos) => {
    const y = rowTop[pos]!;
    const h = rowH[pos]!;
    out.push(`<g class="kmc-step" data-step="${s.index}">`);
    out.push(`<rect class="kmc-row${pos % 2 ? ' kmc-odd' : ''}" x="0" y="${y}" width="${width}" height="${h}"/>`);
    out.push(`<title>${esc(`${s.index}. ${s.label}`)}</title>`);
    out.push(`<text class="kmc-n" x="10" y="${y + h / 2 + 4}">${s.index}</text>`);
    out.push(
      `<text class="kmc-action" x="${labelX}" y="${y + h / 2 + 4}" fill="${s.index === 0 ? '#333' : styleOf(actions, s.action).colour}">${esc(truncate(s.label, MAX_GUTTER_CHARS))}</text>`,
    );
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

  // Activations and marks on the acting party's lifeline.
  steps.forEach((s, pos) => {
    if (s.actor === undefined) return;
    const x = xOf.get(s.actor)!;
    const y = yOf(pos);
    const colour = styleOf(actions, s.action).colour;
    out.push(`<g class="kmc-activation" data-step="${s.index}"><rect x="${x - 5}" y="${y - rowH[pos]! / 2 + 6}" width="10" height="${rowH[pos]! - 12}" rx="2" fill="${colour}" fill-opacity="0.85"/><title>${esc(`${s.actor}: ${s.label}`)}</title></g>`);
    s.marks.forEach((mark, k) => {
      const st = markStyle(mark);
      const mx = x + 9;
      const my = y + 4 + (k - (s.marks.length - 1) / 2) * 13;
      // A mark stays within its lane; the full text is the tooltip.
      const room = laneW - 22 + (actors.indexOf(s.actor!) === actors.length - 1 ? 120 : 0);
      const shown = truncate(`${st.glyph} ${mark}`, Math.max(8, Math.floor(room / CHAR_W)));
      out.push(
        `<g class="kmc-mark" data-step="${s.index}" data-mark="${esc(mark)}"><title>${esc(`${s.actor}: ${mark}`)}</title><text x="${mx}" y="${my}" fill="${st.colour}" font-weight="bold">${esc(shown)}</text></g>`,
      );
    });
  });

  const placed: Box[] = [];
  steps.forEach((s, pos) => {
    if (s.actor === undefined) return;
    s.marks.forEach((mark, k) => {
      const my = yOf(pos) + 4 + (k - (s.marks.length - 1) / 2) * 13;
      placed.push({ x: xOf.get(s.actor!)! + 9, y: my - 10, w: Math.min((mark.length + 2) * CHAR_W, laneW - 22), h: 13 });
    });
  });
  // Each step's receives, then its sends, get their own heights in its row, so arrows never share an end.
  const ends = new Map<MessageFlight, { y1: number; y2: number }>();
  steps.forEach((_, pos) => {
    const events = [...flights.filter((f) => f.receivedAt === pos).map((f) => [f, 'in'] as const), ...flights.filter((f) => f.sentAt === pos).map((f) => [f, 'out'] as const)];
    events.forEach(([f, dir], k) => {
      const y = rowTop[pos]! + (rowH[pos]! * (k + 1)) / (events.length + 1);
      const e = ends.get(f) ?? { y1: y, y2: y };
      ends.set(f, dir === 'in' ? { y1: f.sentAt === undefined ? y : e.y1, y2: y } : { y1: y, y2: f.receivedAt === undefined ? y + 11 : e.y2 });
    });
  });
  for (const f of flights) out.push(messageArrow(f, steps, actions, xOf, ends.get(f)!, placed));

  if (verdict) {
    const y = rowsBottom + 18;
    const lastStep = steps[steps.length - 1]!.index;
    out.push(`<g class="kmc-verdict" data-property="${esc(verdict.property)}">`);
    out.push(`<rect x="8" y="${y}" width="${width - 16}" height="${footerH - 8}" rx="6" fill="${VIOLATION_FILL}" stroke="${VIOLATION_COLOUR}" stroke-width="1.5"/>`);
    out.push(`<text x="18" y="${y + 19}" fill="#7a0c0c" font-weight="bold">${esc(`✗ ${verdictSentence(verdict, lastStep).split(':')[0]}`)}</text>`);
    out.push(`<text x="18" y="${y + 36}" fill="#7a0c0c">${esc(truncate(verdict.description, Math.floor((width - 40) / CHAR_W)))}</text>`);
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function messageArrow(
  f: MessageFlight,
  steps: readonly Step[],
  actions: readonly string[],
  xOf: ReadonlyMap<string, number>,
  { y1, y2 }: { y1: number; y2: number },
  placed: Box[],
): string {
  const colour = styleOf(actions, f.action).colour;
  const x1 = xOf.get(f.message.from)!;
  const x2 = xOf.get(f.message.to)!;
  const inFlight = f.receivedAt === undefined;
  const markerId = `kmc-arrow-${colour.slice(1)}${inFlight ? '-open' : ''}`;
  const sent = f.sentAt !== undefined ? steps[f.sentAt]!.index : undefined;
  const recv = f.receivedAt !== undefined ? steps[f.receivedAt]!.index : undefined;
  const data = `${sent !== undefined ? ` data-sent="${sent}"` : ''}${recv !== undefined ? ` data-received="${recv}"` : ''}`;
  const label = inFlight ? `${f.message.label} (in flight)` : f.message.label;
  const title = `${f.message.from} → ${f.message.to}: ${f.message.label}${sent !== undefined ? `, sent at step ${sent}` : ''}${recv !== undefined ? `, received at step ${recv}` : ', never received'}`;
  const dash = inFlight ? ' stroke-dasharray="5 4"' : '';
  let path: string;
  let lx: number;
  let ly: number;
  if (x1 === x2) {
    // A party messaging itself: a loop to the right of its lifeline.
    const y2s = Math.max(y2, y1 + 14);
    path = `M ${x1 + 5} ${y1} C ${x1 + 46} ${y1}, ${x1 + 46} ${y2s}, ${x1 + 6} ${y2s}`;
    lx = x1 + 48;
    ly = (y1 + y2s) / 2 + 4;
  } else {
    const dir = Math.sign(x2 - x1);
    path = `M ${x1 + dir * 5} ${y1} L ${x2 - dir * 6} ${y2}`;
    // Broadcasts share a start and crossing arrows share middles: slide each label along its arrow
    // to the first place where it does not cover a label already drawn.
    const w = label.length * CHAR_W;
    const at = ([t, dy]: readonly [number, number]): Box => ({ x: x1 + (x2 - x1) * t - w / 2, y: y1 + (y2 - y1) * t + dy, w, h: 13 });
    let box = at(LABEL_POSITIONS[0]!);
    let best = Infinity;
    for (const c of LABEL_POSITIONS) {
      const b = at(c);
      const cost = placed.reduce((n, p) => n + overlapArea(p, b), 0);
      if (cost < best) [box, best] = [b, cost];
      if (cost === 0) break;
    }
    placed.push(box);
    lx = box.x + w / 2;
    ly = box.y + 10;
  }
  return [
    `<g class="kmc-msg${inFlight ? ' kmc-in-flight' : ''}"${data} data-from="${esc(f.message.from)}" data-to="${esc(f.message.to)}">`,
    `<title>${esc(title)}</title>`,
    `<path d="${path}" fill="none" stroke="${colour}" stroke-width="1.6"${dash} marker-end="url(#${markerId})"/>`,
    `<text class="kmc-msg-label" x="${lx}" y="${ly}" fill="${colour}" text-anchor="${x1 === x2 ? 'start' : 'middle'}">${esc(label)}</text>`,
    '</g>',
  ].join('');
}

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** Where along its arrow (fraction) and how far above (−) or below (+) it a label may go, best first. */
const LABEL_POSITIONS: readonly (readonly [number, number])[] = [0.5, 0.65, 0.35, 0.78, 0.22].flatMap((t) => [
  [t, -15],
  [t, 3],
] as const);

function overlapArea(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
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
