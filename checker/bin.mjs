#!/usr/bin/env node
// Entry point of the `kmc` command: loads the TypeScript sources (and users' .ts specs) through tsx.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./cli.ts');
await run();
