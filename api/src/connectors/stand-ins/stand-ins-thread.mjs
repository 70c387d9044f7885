// A worker thread does not share the main thread's TypeScript loader: register it here, then run
// the stand-ins' thread (stand-ins-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('./stand-ins-thread.ts');
