// Names the contract fixes, declared once for the registry, the manifest linter and the sandbox
// (01-general-contract.md).

/** "Webhooks (per server)": the subscribable event types; schedules and manifests use the same set. */
export const EVENT_TYPES = [
  'server.installed', 'server.started', 'server.stopped', 'server.crashed', 'server.idle',
  'backup.completed', 'player.joined', 'player.left', 'git.deployment.completed',
  'threshold.cpu', 'threshold.memory', 'threshold.disk',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * "Permission names used by endpoints". The contract lists the names its endpoints use, not
 * necessarily every permission there is.
 */
export const PERMISSIONS = [
  'control.console', 'control.command', 'control.start', 'control.stop', 'control.restart',
  'file.read', 'file.read-content', 'file.update', 'file.create', 'file.delete', 'file.sftp',
  'settings.edit', 'settings.rename', 'settings.description', 'settings.resources', 'settings.transfer',
  'startup.read', 'startup.update', 'user.read', 'user.update', 'activity.read',
  'instance.read', 'instance.create', 'instance.update', 'instance.activate', 'instance.clone',
] as const;

/** "Init manifest", `application.loader`. */
export const LOADERS = ['paper', 'purpur', 'spigot', 'vanilla', 'fabric', 'forge', 'neoforge', 'bedrock'] as const;
