import { setFlagsFromString } from 'node:v8';
import { V8_FLAGS_EVENT } from './v8-flags.js';

// Imported before any WebAssembly is compiled: undici's HTTP parser (llhttp; core/wire/transport.ts)
// and jq (core/terminal/jq.ts). V8's optimising tier-up compile of llhttp cost ~35 MB of peak memory and
// ~100 ms on a short-lived CLI; the baseline compiler alone parses a response just as well for
// our sizes (measured: servers list peak RSS 89 → 54 MB, first request 0.25 → 0.15 s). jq had
// it from the HTTP client until plain requests stopped loading undici: without it, --jq over
// 5,000 servers took 1.88x of -o json instead of about 1.4x (issue 39).
if (!(process as NodeJS.EventEmitter).emit(V8_FLAGS_EVENT, '--liftoff-only')) setFlagsFromString('--liftoff-only');
