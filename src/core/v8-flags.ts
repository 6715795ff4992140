/**
 * How a module asks for V8 flags. The launcher's loader (boot/bundle-loader.ts) listens while it
 * caches compiled code, since V8 rejects a cache made under other flags; without a listener
 * (in-process runs, tests) the asker sets them itself.
 */
export const V8_FLAGS_EVENT = 'gsh:v8-flags';

/**
 * A run with time to spare (a pause of a wait or a backoff): the launcher's loader writes the
 * code caches it would write at exit now, so a wait that ends exits at once instead of spending
 * 0.2 to 0.45 s writing them after its last line (issue 50, a new user's first runs). Emitted once
 * a run (core/run/interrupts.ts); chunks compiled later are still written at exit.
 */
export const IDLE_EVENT = 'gsh:idle';
