import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { fail, ok } from '../envelope.js';
import type { ArchiveEntry } from '../node/archive.js';
import { archiveOf, archiveSpec, offerArchive } from '../node/archives.js';
import { treeOf } from '../node/server-files.js';
import { emitEvent } from '../node/webhooks.js';
import type { HandlerMap } from './types.js';
import { bodyObject, serverOf } from './util.js';

// Backups that take a while, and the archives behind the download actions (document 3,
// "Operation families that are only named": Backups, Database backups; "Worlds": worlds download
// is "a signed short-lived URL of a compressed archive built on demand"). The contract shows no
// backup fields; the sandbox answers the way the common panel shape does: `uuid`, `name`,
// `created_at`, `status` (`in_progress`, then `completed`), `completed_at` once finished (absent
// before: a missing field means null), `is_successful`, `is_locked`, `bytes`. The strict mode
// (strict.ts) sends none of the progress fields and names the id `id`. A backup takes BACKUP_MS (scaled by --time-scale) and its
// contents are the server's files when it was asked for; when it finishes, the server's hooks get
// `backup.completed` (01 "Webhooks"). As in every generic collection, a `backup_uuid` in the body
// names the new item. Lists, get, lock and delete stay generic.

/** How long a backup takes, in simulated ms. */
export const BACKUP_MS = 4000;

const backups = (ctx: SandboxContext, serverId: string) => ctx.state.generic.collection(`/servers/${serverId}/backups`);

/** The server's files as archive entries (paths without the leading slash). */
function filesOf(ctx: SandboxContext, serverId: string, under = '/'): ArchiveEntry[] {
  return treeOf(ctx, serverId).subtree(under)
    .filter(([, e]) => e.type === 'file')
    .map(([p, e]) => ({ name: p.slice(1), data: e.data }));
}

const WORLD_NAME = /^[\w][\w .-]{0,63}$/;

export const handlers: HandlerMap = {
  'POST /servers/{server_id}/backups': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const uuid = typeof body.backup_uuid === 'string' && body.backup_uuid ? body.backup_uuid : ctx.rng.uuid();
    const now = Date.now();
    const name = typeof body.name === 'string' && body.name ? body.name : `Backup at ${isoSeconds(now)}`;
    const spec = archiveSpec(ctx, `backup-${uuid}.tar.gz`, filesOf(ctx, s.id));
    const backup: Record<string, unknown> = { object: 'server_backup', uuid, id: uuid, name, status: 'in_progress', is_locked: false, created_at: isoSeconds(now) };
    backups(ctx, s.id).set(uuid, backup);
    ctx.clock.after(BACKUP_MS, () => {
      const offer = offerArchive(ctx, s.id, `backup-${uuid}`, spec);
      Object.assign(backup, { status: 'completed', completed_at: isoSeconds(), is_successful: true, bytes: offer.size });
      emitEvent(ctx, s.id, 'backup.completed', { backup_uuid: uuid });
    });
    return ok({ ...backup }, 202);
  },

  'POST /servers/{server_id}/backups/{backup_uuid}/download': (req, ctx) => {
    const s = serverOf(req, ctx);
    const uuid = req.params.backup_uuid ?? '';
    const backup = backups(ctx, s.id).get(uuid);
    if (!backup) throw fail.notFound('Backup not found');
    if (!backup.completed_at) throw fail.conflict('The backup has not finished yet; follow it with GET /servers/{server_id}/backups/{backup_uuid}');
    const spec = archiveOf(ctx, s.id, `backup-${uuid}`);
    if (!spec) throw fail.notFound('Backup archive not found');
    return ok(offerArchive(ctx, s.id, `backup-${uuid}`, spec));
  },

  'POST /servers/{server_id}/databases/{database_id}/backups/{backup_uuid}/download': (req, ctx) => {
    const s = serverOf(req, ctx);
    const { database_id: db = '', backup_uuid: uuid = '' } = req.params;
    if (!ctx.state.generic.collections.get(`/servers/${s.id}/databases`)?.has(db)) throw fail.notFound('Database not found');
    const backup = ctx.state.generic.collections.get(`/servers/${s.id}/databases/${db}/backups`)?.get(uuid);
    if (!backup) throw fail.notFound('Database backup not found');
    const dump = Buffer.from(`-- database ${db}, backup ${uuid}\nCREATE TABLE players (uuid CHAR(36) PRIMARY KEY, name TEXT);\n`);
    return ok(offerArchive(ctx, s.id, `db-${db}-${uuid}`, archiveSpec(ctx, `database-${db}-${uuid}.tar.gz`, [{ name: 'dump.sql', data: dump }])));
  },

  'POST /servers/{server_id}/worlds/download': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const world = body.world ?? body.name ?? body.path;
    if (typeof world !== 'string' || !WORLD_NAME.test(world.replace(/^\//, ''))) throw fail.badRequest('world must be a world folder name, e.g. world');
    const name = world.replace(/^\//, '');
    const entries = filesOf(ctx, s.id, `/${name}`);
    if (!entries.length) throw fail.notFound(`No world named ${name}`);
    return ok(offerArchive(ctx, s.id, `world-${name}-${ctx.rng.hex(6)}`, archiveSpec(ctx, `${name}.tar.gz`, entries)));
  },
};
