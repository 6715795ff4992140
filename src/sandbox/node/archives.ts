import type { SandboxContext } from '../context.js';
import { type ArchiveEntry, type ArchiveSpec, archiveSize } from './archive.js';
import { familyState, serverSlot } from './slots.js';
import { signUrl } from './signed-urls.js';

// The archives a server's node can serve, by id: worlds and database backups are built when
// their download is asked for, a backup's contents are fixed when it is made. The signed URL
// names the id (covered by its signature), so the node serves exactly what the answer described.

function archives(ctx: SandboxContext, serverId: string): Map<string, ArchiveSpec> {
  return serverSlot(ctx, serverId, 'archives', () => new Map<string, ArchiveSpec>());
}

export function archiveOf(ctx: SandboxContext, serverId: string, id: string): ArchiveSpec | undefined {
  return archives(ctx, serverId).get(id);
}

/** An archive of `entries` with the sandbox's current filler (POST /__sandbox/archives). */
export function archiveSpec(ctx: SandboxContext, filename: string, entries: ArchiveEntry[]): ArchiveSpec {
  return { filename, entries, fillerBytes: familyState(ctx).archiveFillerBytes };
}

/** The answer of a download action: a signed URL of the archive, its expiry, size and file name. */
export function offerArchive(ctx: SandboxContext, serverId: string, id: string, spec: ArchiveSpec): Record<string, unknown> {
  archives(ctx, serverId).set(id, spec);
  return { object: 'signed_url', method: 'GET', ...signUrl(ctx, 'archive', serverId, id), size: archiveSize(spec), filename: spec.filename };
}
