import { SKIPPED_LINE, type Frame } from './protocol.js';

// How `gsh console attach` shows socket events other than console output, on stderr
// (01-general-contract.md "Console socket", node-to-client table). Token renewal is handled by
// the session and stays quiet; stats are for `gsh console stats`.

export type Shown = { kind: 'note' | 'warn'; text: string } | undefined;

export function describeEvent(frame: Frame): Shown {
  const arg = frame.args?.[0] ?? '';
  switch (frame.event) {
    case 'console output': {
      const skipped = SKIPPED_LINE.exec(arg);
      return skipped ? { kind: 'warn', text: arg } : undefined;
    }
    case 'status':
      return { kind: 'note', text: `server is ${arg}` };
    case 'daemon message':
      return { kind: 'note', text: `[node] ${arg}` };
    case 'daemon error':
      return { kind: 'warn', text: `[node] ${arg}` };
    case 'install started':
      return { kind: 'note', text: 'install started' };
    case 'install output':
      return { kind: 'note', text: `[install] ${arg}` };
    case 'install completed':
      return arg === 'false' ? { kind: 'warn', text: 'install failed' } : { kind: 'note', text: 'install completed' };
    case 'transfer logs':
      return { kind: 'note', text: `[transfer] ${arg}` };
    case 'transfer status':
      return { kind: 'note', text: `transfer: ${transferText(arg)}` };
    case 'crash restart pending':
      return { kind: 'warn', text: arg === 'false' ? 'crash restart cancelled' : 'the server crashed; an automatic restart is pending' };
    case 'git:deployment.started':
      return { kind: 'note', text: 'git deployment started' };
    case 'git:deployment.progress':
      return { kind: 'note', text: `[git] ${arg}` };
    case 'git:deployment.completed':
      return { kind: 'note', text: 'git deployment completed' };
    case 'git:deployment.failed':
      return { kind: 'warn', text: `git deployment failed: ${arg}` };
    case 'jwt error':
      return /expir/i.test(arg) ? undefined : { kind: 'warn', text: `console session: ${arg}` };
    default:
      return undefined;
  }
}

function transferText(json: string): string {
  try {
    const s = JSON.parse(json) as { phase?: string; title?: string; message?: string; progress?: number; terminal?: boolean };
    const parts = [s.phase, s.title, s.message, typeof s.progress === 'number' ? `${s.progress}%` : undefined];
    return parts.filter((p) => p !== undefined && p !== '').join(' · ') + (s.terminal ? ' (done)' : '');
  } catch {
    return json;
  }
}
