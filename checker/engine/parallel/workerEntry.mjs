// Worker thread entry. In the published package the compiled worker.js sits beside this file; in a
// source checkout the TypeScript is loaded through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('./worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker.ts');
}
