/**
 * KRaft over Immutable.js records: the same spec as kraft.ts without its layout (the same actions and
 * properties, run on the records of state.ts and messages.ts). Not a bundled spec: kept so a test can
 * hold the packed and the Immutable forms to the same counts and traces.
 */
import { defineSpec } from '../spec.ts';
import kraft, { buildKraft } from './kraft.ts';
import type { KraftState } from './state.ts';

export default defineSpec<KraftState>({ ...kraft, build: (params) => buildKraft(params, 'immutable') });
