// Worker thread entry: load TypeScript through tsx, as the main thread does.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
