// Names the manifest refers to, copied from the contract (01-general-contract.md).

/** "Webhooks (per server)": the subscribable event types; schedules use "the same event set". */
export const EVENT_TYPES = [
  'server.installed', 'server.started', 'server.stopped', 'server.crashed', 'server.idle',
  'backup.completed', 'player.joined', 'player.left', 'git.deployment.completed',
  'threshold.cpu', 'threshold.memory', 'threshold.disk',
] as const;

/**
 * "Permission names used by endpoints". The contract lists the names its endpoints use, not
 * necessarily every permission, so an unlisted name is a warning rather than an error.
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

export const FINAL_STATES = ['running', 'stopped'] as const;

export const TASK_ACTIONS = ['command', 'power', 'backup'] as const;

export const CONTENT_SOURCES = ['provider_a', 'url'] as const;

/** The first line of every manifest. */
export const HEADER = '#service-init';
