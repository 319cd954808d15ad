// Entry of a `kmc ci` worker thread: loads the TypeScript sources through tsx, then serves jobs.
import { register } from 'tsx/esm/api';

register();
await import('./workerMain.ts');
