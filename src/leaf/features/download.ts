import { failedAfterApplied, UsageError } from '../../core/errors.js';
import type { DownloadTarget } from '../../core/transfer/download.js';
import { step } from '../../core/plan.js';
import { type Feature, slot } from '../feature.js';

// `signedUrl`: the answer carries a short-lived signed URL; `--to FILE|DIR|-` and `--clobber`
// download its bytes (core/transfer/download.ts, loaded only by these operations).

const planned = slot<DownloadTarget>('download');

export const download: Feature = {
  name: 'signed-URL download',
  reserves: (op) => (op.signedUrl ? ['to', 'clobber'] : []),
  flags({ cmd, leaf: { op } }) {
    if (!op.signedUrl) return;
    cmd.option('--to <file|dir|->', 'download what the signed URL serves: to this file (atomically), into this directory (named by the download), or - for stdout');
    cmd.option('--clobber', 'with --to: replace an existing file, keeping its mode (new files: 0644 less the umask)');
  },
  help: ({ op }) => (op.signedUrl ? { api: ['  then, with --to: GET <signed url> (no credential: the URL is its own; it expires)'] } : {}),
  fleet(leaf, local) {
    if (local.to !== undefined && leaf.op.signedUrl) throw new UsageError('--to downloads from one server', 'Give one -s, or run the command once per server.');
  },
  async values(d) {
    if (!d.leaf.op.signedUrl) return;
    const { planTarget } = await import('../../core/transfer/download.js');
    const target = planTarget(d.local.to as string | undefined, d.local.clobber === true);
    if (target) planned.set(d, target);
  },
  async request(d) {
    const target = planned.get(d);
    if (!target) return;
    // The signed URL is known only from the answer: the plan names its GET with a placeholder.
    const { describeTarget, fetchSpec, SIGNED_URL } = await import('../../core/transfer/download.js');
    d.after.push(fetchSpec(SIGNED_URL));
    d.then.push(step('transfer', describeTarget(target, String(d.local.to))));
  },
  async afterAnswer({ rt, p, out }, res, data) {
    const target = planned.get(p);
    if (!target) return;
    const { announcedSize, download: fetchBytes, signedUrlOf } = await import('../../core/transfer/download.js');
    try {
      const got = await fetchBytes(rt, p.client, signedUrlOf(data), target, { size: announcedSize(data), fallbackName: fallbackName(data, p.params) });
      if (got.path) out.note(`Saved ${got.bytes} bytes to ${got.path}`);
    } catch (caught) {
      throw await downloadFailed(caught, res.idempotencyKey, rt.argv);
    }
    return true;
  },
  afterShow({ rt, p, out }, _res, data) {
    if (!p.leaf.op.signedUrl || !rt.io.stderrTTY) return;
    const expires = (data as { expires_at?: unknown } | undefined)?.expires_at;
    out.note(`Download it: add --to FILE, --to DIR/ or --to - (stdout)${typeof expires === 'string' ? `; the URL expires at ${expires}` : ''}.`);
  },
};

/**
 * The signed URL arrived whole and its download failed (refused certificate, cut every time): the
 * request's answer was not lost, so the error names the download as the step that failed, keeps
 * its own hint (a certificate's NODE_EXTRA_CA_CERTS), and resumes with the replay, which gets the
 * same signed URL back instead of issuing another.
 */
async function downloadFailed(caught: unknown, key: string | undefined, argv: readonly string[]): Promise<unknown> {
  const { replayCommand } = await import('../../core/terminal/report.js');
  return failedAfterApplied(caught, key, 'download', (_, k) => replayCommand(argv, k));
}

/** The name a download gets in a --to directory when Content-Disposition gives none. */
function fallbackName(data: unknown, params: Record<string, string>): string {
  const d = (data ?? {}) as Record<string, unknown>;
  const named = [d.filename, d.name, d.path].find((v): v is string => typeof v === 'string' && v !== '');
  const last = named?.split('/').pop();
  if (last) return last;
  const ids = Object.entries(params).filter(([k]) => k !== 'server_id').map(([, v]) => v);
  return ids.length ? `${ids[ids.length - 1]}.download` : 'download';
}
