import type { Tier } from '../init/caps.js';
import { Exit, GshError } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';

// A manifest about to be sent is linted locally first, at the caps it will be held to (templates
// at paid, a server at its plan's): findings go to stderr, and errors stop the command before any
// request, so a CI job never creates a server the service then refuses (issue: create at the
// real plan). The linter is loaded only when a manifest is sent.

export async function lintBeforeSending(rt: Runtime, name: string, bytes: Uint8Array, tier: Tier, why: string): Promise<void> {
  const [{ lintBytes }, { FORMATTERS }] = await Promise.all([import('../init/lint.js'), import('../init/format/index.js')]);
  const { problems, lines } = lintBytes(bytes, tier);
  if (problems.length === 0) return;
  const format = rt.io.stderrTTY ? FORMATTERS.stylish : FORMATTERS.compact;
  rt.io.stderr.write(format([{ file: name, problems, lines }], { color: rt.io.colorErr }));
  const errors = problems.filter((p) => p.severity === 'error').length;
  if (errors > 0) {
    throw new GshError(
      `${name}: ${errors} error${errors === 1 ? '' : 's'} at the ${tier} caps ${why}; nothing was sent`,
      Exit.error,
      'Fix them, or add --no-lint to send it anyway and see the service\'s answer.',
    );
  }
}
