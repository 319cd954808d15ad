/** Writes a counterexample to a folder: the ITF trace (for `kmc replay`) and its text form. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ItfTrace } from '../traces/itf.ts';
import { renderText } from '../traces/text.ts';

/** Returns the paths written. Names are `<spec>[-<preset>]-<property>.*`. */
export async function writeCounterexample(trace: ItfTrace, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const meta = trace['#meta'];
  const base = [meta.spec, meta.preset, meta.verdict?.property].filter(Boolean).join('-');
  const itfPath = join(dir, `${base}.itf.json`);
  writeFileSync(itfPath, `${JSON.stringify(trace, null, 2)}\n`);
  const textPath = join(dir, `${base}.txt`);
  const plain = renderText(trace).replace(/\x1b\[[0-9;]*m/g, '');
  writeFileSync(textPath, `${plain}\n`);
  return [itfPath, textPath];
}
