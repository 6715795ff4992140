import { setFlagsFromString } from 'node:v8';
import { V8_FLAGS_EVENT } from './v8-flags.js';

// Imported before undici: its HTTP parser (llhttp) is WebAssembly, and V8's optimising tier-up
// compile of it costs ~35 MB of peak memory and ~100 ms on a short-lived CLI. The baseline
// compiler alone parses a response just as well for our sizes (measured: servers list peak RSS
// 89 → 54 MB, first request 0.25 → 0.15 s).
if (!(process as NodeJS.EventEmitter).emit(V8_FLAGS_EVENT, '--liftoff-only')) setFlagsFromString('--liftoff-only');
