/**
 * What `kmc list` shows of the bundled specs: names, parameters and presets. The package carries it as
 * `bundled-specs.json`, written by the build from the same compiled specs, so that listing them does not
 * load every model; a source checkout loads the specs.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { SpecDefinition } from '../../spec/spec.ts';
import { loadSpec } from '../run/loadSpec.ts';
import { BUNDLED_NAMES } from '../run/registry.ts';

export type SpecSummary = Pick<SpecDefinition<unknown>, 'name' | 'description' | 'params' | 'presets'>;

export const CATALOG_FILE = 'bundled-specs.json';

export async function bundledCatalog(): Promise<SpecSummary[]> {
  const file = new URL(`./${CATALOG_FILE}`, import.meta.url);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SpecSummary[];
  return loadCatalog();
}

/** The summaries read from the specs themselves. */
export async function loadCatalog(): Promise<SpecSummary[]> {
  const specs: SpecSummary[] = [];
  for (const name of BUNDLED_NAMES) {
    const { name: specName, description, params, presets } = (await loadSpec(name)).definition;
    specs.push({ name: specName, description, params, presets });
  }
  return specs;
}
