// Entry of a `kmc ci` worker thread. In the published package the compiled workerMain.js sits beside
// this file; in a source checkout the TypeScript is loaded through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('./workerMain.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./workerMain.ts');
}
