import type { Family } from './types.js';

// The registry's table of contents. It is all the CLI reads at startup: the top-level words and
// which family files define commands under them. A family file is imported only when one of its
// words runs (or when a tool needs everything: reference, completions, man pages, the sandbox).
// Each loader is an explicit `import()` so the bundler splits one chunk per family.

type Loader = () => Promise<{ default: Family }>;

export const familyLoaders = {
  system: () => import('./system.js'),
  applications: () => import('./applications.js'),
  'ssh-keys': () => import('./ssh-keys.js'),
  integrations: () => import('./integrations.js'),
  servers: () => import('./servers.js'),
  hooks: () => import('./hooks.js'),
  console: () => import('./console.js'),
  power: () => import('./power.js'),
  settings: () => import('./settings.js'),
  notifications: () => import('./notifications.js'),
  startup: () => import('./startup.js'),
  properties: () => import('./properties.js'),
  instances: () => import('./instances.js'),
  subusers: () => import('./subusers.js'),
  activity: () => import('./activity.js'),
  init: () => import('./init.js'),
  files: () => import('./files.js'),
  'file-tools': () => import('./file-tools.js'),
  'file-archives': () => import('./file-archives.js'),
  'file-transfers': () => import('./file-transfers.js'),
  'file-trash': () => import('./file-trash.js'),
  importer: () => import('./importer.js'),
  worlds: () => import('./worlds.js'),
  players: () => import('./players.js'),
  addons: () => import('./addons.js'),
  marketplace: () => import('./marketplace.js'),
  'custom-packs': () => import('./custom-packs.js'),
  modules: () => import('./modules.js'),
  advertisement: () => import('./advertisement.js'),
  allocations: () => import('./allocations.js'),
  ports: () => import('./ports.js'),
  subdomains: () => import('./subdomains.js'),
  domains: () => import('./domains.js'),
  proxies: () => import('./proxies.js'),
  'internal-network': () => import('./internal-network.js'),
  firewall: () => import('./firewall.js'),
  'firewall-analytics': () => import('./firewall-analytics.js'),
  databases: () => import('./databases.js'),
  'database-backups': () => import('./database-backups.js'),
  backups: () => import('./backups.js'),
  'backup-restore': () => import('./backup-restore.js'),
  'auto-backups': () => import('./auto-backups.js'),
  'gdrive-backups': () => import('./gdrive-backups.js'),
  schedules: () => import('./schedules.js'),
  'schedule-tasks': () => import('./schedule-tasks.js'),
  'schedule-triggers': () => import('./schedule-triggers.js'),
  'schedule-webhooks': () => import('./schedule-webhooks.js'),
  git: () => import('./git.js'),
  monitor: () => import('./monitor.js'),
  logs: () => import('./logs.js'),
  billing: () => import('./billing.js'),
  tickets: () => import('./tickets.js'),
  'support-access': () => import('./support-access.js'),
  'game-status': () => import('./game-status.js'),
  agent: () => import('./agent.js'),
} satisfies Record<string, Loader>;

export type FamilyName = keyof typeof familyLoaders;

/** Top-level command word → summary for `gsh --help` and the family files that define it. */
export const topWords: Record<string, { summary: string; families: FamilyName[] }> = {
  health: { summary: 'Check that the service is up (no credential needed)', families: ['system'] },
  me: { summary: 'Show the account and the key in use', families: ['system'] },
  docs: { summary: 'Where the hosted API reference lives', families: ['system'] },
  llms: { summary: 'Concise documentation index for language models', families: ['system'] },
  'llms-full': { summary: 'Full documentation as markdown', families: ['system'] },
  openapi: { summary: 'The machine-readable API specification', families: ['system'] },
  applications: { summary: 'Games and applications a server can run', families: ['applications'] },
  'ssh-keys': { summary: 'SSH keys of the account (SFTP/SSH to every server)', families: ['ssh-keys'] },
  integrations: { summary: 'Connected git providers and cloud drive', families: ['integrations'] },
  servers: { summary: 'Create, inspect, reinstall and delete servers', families: ['servers'] },
  hooks: { summary: 'Webhooks pushing server events to HTTPS endpoints', families: ['hooks'] },
  console: { summary: 'Console commands, EULA, queue, status and socket sessions', families: ['console'] },
  power: { summary: 'Start, stop, restart or kill a server', families: ['power'] },
  settings: {
    summary: 'Server settings, resources, application, transfer and notifications',
    families: ['settings', 'notifications'],
  },
  startup: { summary: 'Startup command and environment variables', families: ['startup'] },
  properties: { summary: 'server.properties and application config files', families: ['properties'] },
  instances: { summary: 'Instance profiles, activation and clones', families: ['instances'] },
  subusers: { summary: 'Subusers of a server and their permissions', families: ['subusers'] },
  activity: { summary: 'Activity logs of a server or of your account', families: ['activity'] },
  init: { summary: 'Init templates, manifest validation and provisioning status', families: ['init'] },
  files: {
    summary: 'Server files: browse, edit, tools, archives, transfers, trash, SFTP',
    families: ['files', 'file-tools', 'file-archives', 'file-transfers', 'file-trash'],
  },
  importer: { summary: 'Import an external server over SFTP or FTP', families: ['importer'] },
  worlds: { summary: 'Worlds, maps, downloads and level data', families: ['worlds'] },
  players: { summary: 'Players, inventories, data files and UUID migration', families: ['players'] },
  addons: {
    summary: 'Plugins, mods, modpacks, marketplace and custom packs',
    families: ['addons', 'marketplace', 'custom-packs'],
  },
  modules: { summary: 'Runtime dependencies and their background tasks', families: ['modules'] },
  advertisement: { summary: 'Server listing advertisement, posts and comments', families: ['advertisement'] },
  allocations: { summary: 'Network allocations of a server', families: ['allocations'] },
  ports: { summary: 'Ports of a server', families: ['ports'] },
  subdomains: { summary: 'Subdomains pointing at a server', families: ['subdomains'] },
  domains: { summary: 'Custom domains of a server', families: ['domains'] },
  proxies: { summary: 'HTTP proxies with SSL in front of a server', families: ['proxies'] },
  network: { summary: 'Internal network between your servers', families: ['internal-network'] },
  firewall: { summary: 'Firewall, rules and traffic analytics', families: ['firewall', 'firewall-analytics'] },
  databases: { summary: 'Databases and their backups', families: ['databases', 'database-backups'] },
  backups: {
    summary: 'Backups: create, restore, automatic, cloud drive',
    families: ['backups', 'backup-restore', 'auto-backups', 'gdrive-backups'],
  },
  schedules: {
    summary: 'Schedules, their tasks, triggers and webhooks',
    families: ['schedules', 'schedule-tasks', 'schedule-triggers', 'schedule-webhooks'],
  },
  git: { summary: 'Git repository link, browsing and deployments', families: ['git'] },
  monitor: { summary: 'Crashes, metrics, health and player activity', families: ['monitor'] },
  logs: { summary: 'Analyze and share server logs', families: ['logs'] },
  billing: { summary: 'Balance, documents, pricing and top-ups', families: ['billing'] },
  tickets: { summary: 'Support tickets', families: ['tickets'] },
  'support-access': { summary: 'Time-boxed staff access to a server', families: ['support-access'] },
  'game-status': { summary: 'Live status of any public game server', families: ['game-status'] },
  agent: { summary: 'Agent registration: discovery, identity, claim and tokens', families: ['agent'] },
};

export async function loadFamilies(names: readonly FamilyName[]): Promise<Family[]> {
  return Promise.all(names.map(async (n) => (await familyLoaders[n]()).default));
}

export async function loadAllFamilies(): Promise<Family[]> {
  return loadFamilies(Object.keys(familyLoaders) as FamilyName[]);
}
