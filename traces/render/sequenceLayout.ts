/**
 * Where everything in a message-sequence chart goes, so that no two labels overlap and no arrow runs
 * through a label at any trace length. Each step is a vertical band cut into rows ("slots"): first the
 * ends of the messages it receives, then one row per lifeline mark ("✖ fenced", "↻ restart", "◷ timeout"),
 * then one two-line slot per message it sends (the label's line above the arrow's). Arrows are then fixed,
 * and each label takes the first position along its own row that no arrow crosses and no other label
 * covers. A label with no such position gets more room above its row, which steepens the arrows passing
 * through it, and the chart is laid out again.
 */
import type { MessageFlight } from './messages.ts';
import type { Step } from './steps.ts';
import { boxesOverlap, inflate, polylineHitsBox, sampleCubic, type Box, type Polyline } from './geometry.ts';

export const CHAR_W = 6.7; // average advance of the 11px monospace font
export const HEAD_Y = 44;
export const HEAD_H = 28;
const TOP = HEAD_Y + HEAD_H + 14;
const MIN_BAND = 40;
const BAND_PAD = 8;
const RECEIVE_H = 16;
const MARK_H = 18;
/** A labelled slot: the label's line, then the arrow. */
const LABELLED_H = 30;
const LABEL_TO_ARROW = 22;
const TEXT_H = 14;
const TEXT_ASCENT = 10;
const GROW = 14;
const MAX_ROUNDS = 12;
export const MAX_GUTTER_CHARS = 38;
export const MAX_MARK_CHARS = 60;

/** Width of text in the chart's font; symbols outside ASCII often come from a wider fallback font. */
export function textWidth(s: string): number {
  let n = 0;
  for (const ch of s) n += ch.charCodeAt(0) < 128 ? 1 : 2;
  return n * CHAR_W;
}

export interface PlacedLabel {
  readonly text: string;
  /** Left end and baseline of the text (drawn with text-anchor start). */
  readonly x: number;
  readonly y: number;
  readonly box: Box;
}

export interface ArrowGeometry {
  readonly flight: MessageFlight;
  readonly d: string;
  readonly line: Polyline;
  readonly label: PlacedLabel;
}

export interface MarkGeometry {
  readonly pos: number;
  readonly mark: string;
  readonly label: PlacedLabel;
}

export interface LoopGeometry {
  /** Trace position the trace repeats from. */
  readonly pos: number;
  readonly d: string;
  readonly line: Polyline;
  readonly label: PlacedLabel;
}

export interface SequenceLayout {
  readonly width: number;
  readonly gutterW: number;
  readonly labelX: number;
  readonly laneW: number;
  readonly xOf: ReadonlyMap<string, number>;
  readonly bands: readonly { readonly top: number; readonly h: number }[];
  readonly rowsBottom: number;
  /** Where the footer (verdict) starts. */
  readonly footerTop: number;
  readonly arrows: readonly ArrowGeometry[];
  readonly marks: readonly MarkGeometry[];
  readonly activations: readonly Box[];
  readonly loop?: LoopGeometry;
  /** Labels that found no clear place even after the chart grew (empty in every chart kmc has drawn). */
  readonly crowded: number;
}

type Slot =
  | { readonly kind: 'receive'; readonly flight: MessageFlight }
  | { readonly kind: 'labelled'; readonly flight: MessageFlight }
  | { readonly kind: 'mark'; readonly mark: string; readonly k: number };

const slotKey = (pos: number, i: number) => `${pos}:${i}`;

/** Each step's rows in drawing order. */
function slotsOf(steps: readonly Step[], flights: readonly MessageFlight[]): Slot[][] {
  return steps.map((s, pos) => [
    ...flights.filter((f) => f.receivedAt === pos && f.sentAt !== undefined).map((flight) => ({ kind: 'receive' as const, flight })),
    ...flights.filter((f) => f.receivedAt === pos && f.sentAt === undefined).map((flight) => ({ kind: 'labelled' as const, flight })),
    ...(s.actor !== undefined ? s.marks.map((mark, k) => ({ kind: 'mark' as const, mark, k })) : []),
    ...flights.filter((f) => f.sentAt === pos).map((flight) => ({ kind: 'labelled' as const, flight })),
  ]);
}

const slotHeight = (s: Slot) => (s.kind === 'receive' ? RECEIVE_H : s.kind === 'mark' ? MARK_H : LABELLED_H);

export function layoutSequence(
  steps: readonly Step[],
  actors: readonly string[],
  flights: readonly MessageFlight[],
  loopPos?: number,
  gutterLabels = true,
): SequenceLayout {
  const labelX = 10 + 4 * CHAR_W; // room for a three-digit step number
  const longestLabel = Math.max(8, ...steps.map((s) => Math.min(MAX_GUTTER_CHARS, s.label.length)));
  const gutterW = Math.round(gutterLabels ? labelX + longestLabel * CHAR_W + 16 : labelX);
  const longestName = Math.max(6, ...actors.map((a) => a.length));
  const laneW = Math.round(Math.min(190, Math.max(130, longestName * CHAR_W + 36)));
  const xOf = new Map(actors.map((a, i) => [a, gutterW + laneW * i + laneW / 2]));
  const lanesRight = gutterW + laneW * Math.max(1, actors.length);
  const slots = slotsOf(steps, flights);
  const gaps = new Map<string, number>();

  let attempt = place(0);
  for (let round = 1; round < MAX_ROUNDS && attempt.failed.length > 0; round++) {
    for (const key of attempt.failed) gaps.set(key, (gaps.get(key) ?? 0) + GROW);
    attempt = place(round);
  }
  return attempt.layout;

  function place(_round: number): { layout: SequenceLayout; failed: string[] } {
    // Vertical positions: bands, and the top of each slot.
    const bands: { top: number; h: number }[] = [];
    const slotTop = new Map<string, number>();
    let y = TOP;
    slots.forEach((row, pos) => {
      let inner = BAND_PAD;
      row.forEach((slot, i) => {
        inner += gaps.get(slotKey(pos, i)) ?? 0;
        slotTop.set(slotKey(pos, i), y + inner);
        inner += slotHeight(slot);
      });
      const h = Math.max(MIN_BAND, inner + BAND_PAD);
      // A band taller than its rows centres them.
      if (h > inner + BAND_PAD) row.forEach((_, i) => slotTop.set(slotKey(pos, i), slotTop.get(slotKey(pos, i))! + (h - inner - BAND_PAD) / 2));
      bands.push({ top: y, h });
      y += h;
    });
    const rowsBottom = y;

    // Arrow ends: a receive row's middle, or a labelled slot's arrow line.
    const ends = new Map<MessageFlight, { y1?: number; y2?: number; labelTop?: number; slot?: string }>();
    const end = (f: MessageFlight) => ends.get(f) ?? (ends.set(f, {}), ends.get(f)!);
    slots.forEach((row, pos) =>
      row.forEach((slot, i) => {
        if (slot.kind === 'mark') return;
        const top = slotTop.get(slotKey(pos, i))!;
        const e = end(slot.flight);
        if (slot.kind === 'receive') e.y2 = top + RECEIVE_H / 2;
        else {
          e.labelTop = top + 2;
          e.slot = slotKey(pos, i);
          if (slot.flight.sentAt === pos) e.y1 = top + LABEL_TO_ARROW;
          else e.y1 = e.y2 = top + LABEL_TO_ARROW; // received with no send in the trace: drawn where it lands
        }
      }),
    );
    const arrowLines = flights.map((f) => {
      const e = ends.get(f)!;
      const x1 = xOf.get(f.message.from)!;
      const x2 = xOf.get(f.message.to)!;
      const y1 = e.y1!;
      const y2 = f.receivedAt === undefined ? y1 + 6 : e.y2!;
      if (x1 === x2) {
        // A party messaging itself: a loop to the right of its lifeline.
        const y2s = Math.max(y2, y1 + 14);
        const p = [{ x: x1 + 5, y: y1 }, { x: x1 + 46, y: y1 }, { x: x1 + 46, y: y2s }, { x: x1 + 6, y: y2s }] as const;
        return { d: `M ${p[0].x} ${y1} C ${p[1].x} ${y1}, ${p[2].x} ${y2s}, ${p[3].x} ${y2s}`, line: sampleCubic(...p), x1, x2 };
      }
      const dir = Math.sign(x2 - x1);
      const a = { x: x1 + dir * 5, y: y1 };
      const b = { x: x2 - dir * 6, y: y2 };
      return { d: `M ${a.x} ${a.y} L ${b.x} ${b.y}`, line: [a, b], x1, x2 };
    });
    const activations: Box[] = [];
    steps.forEach((s, pos) => {
      if (s.actor === undefined) return;
      const band = bands[pos]!;
      activations.push({ x: xOf.get(s.actor)! - 5, y: band.top + 6, w: 10, h: band.h - 12 });
    });

    const lines: Polyline[] = arrowLines.map((a) => a.line);
    const taken: Box[] = [];
    const failed: string[] = [];
    const leftLimit = gutterW + 4;
    const rightLimit = lanesRight + 420;
    const clear = (b: Box) =>
      b.x >= leftLimit &&
      b.x + b.w <= rightLimit &&
      !lines.some((l) => polylineHitsBox(l, inflate(b, 2))) &&
      !taken.some((t) => boxesOverlap(inflate(t, 1), b)) &&
      !activations.some((a) => boxesOverlap(a, inflate(b, 1)));
    /** The first clear left edge among `preferred` and then ever farther from it; `undefined` if none. */
    const firstClear = (preferred: readonly number[], top: number, w: number): Box | undefined => {
      const xs = [...preferred];
      for (let k = 1; k <= 60; k++) xs.push(preferred[0]! + k * 12, preferred[0]! - k * 12);
      for (const x of xs) {
        const b = { x, y: top, w, h: TEXT_H };
        if (clear(b)) return b;
      }
      return undefined;
    };
    const label = (text: string, b: Box): PlacedLabel => ({ text, x: b.x, y: b.y + TEXT_ASCENT, box: b });

    const marks: MarkGeometry[] = [];
    slots.forEach((row, pos) =>
      row.forEach((slot, i) => {
        if (slot.kind !== 'mark') return;
        const x = xOf.get(steps[pos]!.actor!)!;
        const text = markText(slot.mark);
        const w = textWidth(text);
        const top = slotTop.get(slotKey(pos, i))! + (MARK_H - TEXT_H) / 2;
        let b = firstClear([x + 9, x - 9 - w], top, w);
        if (!b) failed.push(slotKey(pos, i));
        b ??= { x: x + 9, y: top, w, h: TEXT_H };
        taken.push(b);
        marks.push({ pos, mark: slot.mark, label: label(text, b) });
      }),
    );

    const arrows: ArrowGeometry[] = flights.map((f, n) => {
      const e = ends.get(f)!;
      const { x1, x2, d, line } = arrowLines[n]!;
      const text = messageText(f);
      const w = textWidth(text);
      const toward = x2 >= x1 ? x1 + 8 : x1 - 8 - w;
      const away = x2 >= x1 ? x1 - 8 - w : x1 + 8;
      let b = firstClear([toward, away], e.labelTop!, w);
      if (!b) failed.push(e.slot!);
      b ??= { x: toward, y: e.labelTop!, w, h: TEXT_H };
      taken.push(b);
      return { flight: f, d, line, label: label(text, b) };
    });

    let contentRight = Math.max(lanesRight, ...taken.map((b) => b.x + b.w + 8));
    let loop: LoopGeometry | undefined;
    let footerTop = rowsBottom + 18;
    if (loopPos !== undefined && loopPos >= 0 && loopPos < steps.length) {
      const last = bands[bands.length - 1]!;
      const back = bands[loopPos]!;
      const colX = contentRight + 20;
      const yFrom = last.top + last.h / 2;
      const yTo = back.top + Math.min(back.h / 2, 14);
      const pts = [
        { x: contentRight + 2, y: yFrom },
        { x: colX, y: yFrom },
        { x: colX, y: yTo },
        { x: contentRight + 6, y: yTo },
      ];
      const text = `↻ repeats forever from step ${steps[loopPos]!.index}`;
      const w = textWidth(text);
      const b = { x: Math.max(leftLimit, colX + 10 - w), y: rowsBottom + 4, w, h: TEXT_H };
      loop = { pos: loopPos, d: `M ${pts.map((p) => `${p.x} ${p.y}`).join(' L ')}`, line: pts, label: label(text, b) };
      contentRight = Math.max(colX + 16, b.x + b.w + 8);
      footerTop = rowsBottom + 4 + TEXT_H + 12;
    }
    const width = Math.round(contentRight + 8);
    return {
      failed,
      layout: { width, gutterW, labelX, laneW, xOf, bands, rowsBottom, footerTop, arrows, marks, activations, ...(loop ? { loop } : {}), crowded: failed.length },
    };
  }
}

export function messageText(f: MessageFlight): string {
  return f.receivedAt === undefined ? `${f.message.label} (in flight)` : f.message.label;
}

/** A lifeline mark as drawn: its glyph and (cut to a readable length) its words. */
export function markText(mark: string): string {
  const t = `${markGlyph(mark)} ${mark}`;
  return t.length <= MAX_MARK_CHARS ? t : `${t.slice(0, MAX_MARK_CHARS - 1)}…`;
}

export interface MarkStyle {
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

const markGlyph = (mark: string) => markStyle(mark).glyph;
