import type { Prng } from './prng.js';

// Demo catalogue and naming. Deterministic: everything random comes from the seeded PRNG.

export interface Application {
  object: 'application';
  id: number;
  slug: string;
  name: string;
  kind: 'game' | 'application' | 'database';
  free_tier: boolean;
}

export const APPLICATIONS: readonly Application[] = [
  { object: 'application', id: 1, slug: 'minecraft', name: 'Minecraft: Java Edition', kind: 'game', free_tier: true },
  { object: 'application', id: 2, slug: 'minecraft-bedrock', name: 'Minecraft: Bedrock Edition', kind: 'game', free_tier: true },
  { object: 'application', id: 3, slug: 'terraria', name: 'Terraria', kind: 'game', free_tier: true },
  { object: 'application', id: 4, slug: 'valheim', name: 'Valheim', kind: 'game', free_tier: false },
  { object: 'application', id: 5, slug: 'rust', name: 'Rust', kind: 'game', free_tier: false },
  { object: 'application', id: 6, slug: 'palworld', name: 'Palworld', kind: 'game', free_tier: false },
  { object: 'application', id: 7, slug: 'nodejs', name: 'Node.js', kind: 'application', free_tier: true },
  { object: 'application', id: 8, slug: 'python', name: 'Python', kind: 'application', free_tier: true },
  { object: 'application', id: 9, slug: 'discord-bot', name: 'Discord bot (Node.js)', kind: 'application', free_tier: false },
  { object: 'application', id: 10, slug: 'mariadb', name: 'MariaDB', kind: 'database', free_tier: true },
  { object: 'application', id: 11, slug: 'postgresql', name: 'PostgreSQL', kind: 'database', free_tier: false },
  { object: 'application', id: 12, slug: 'redis', name: 'Redis', kind: 'database', free_tier: false },
];

/** Server names paired with the application they plausibly run. */
const NAMES: ReadonlyArray<readonly [string, string]> = [
  ['lobby', 'minecraft'], ['survival', 'minecraft'], ['creative', 'minecraft'], ['skyblock', 'minecraft'],
  ['bedwars', 'minecraft'], ['factions', 'minecraft'], ['hardcore-smp', 'minecraft'], ['modded-smp', 'minecraft'],
  ['pocket-realm', 'minecraft-bedrock'], ['terraria-world', 'terraria'], ['viking-camp', 'valheim'],
  ['rust-island', 'rust'], ['pal-base', 'palworld'], ['api-backend', 'nodejs'], ['discord-helper', 'discord-bot'],
  ['stats-worker', 'python'], ['game-db', 'mariadb'], ['analytics-db', 'postgresql'], ['session-cache', 'redis'],
  ['event-arena', 'minecraft'], ['build-team', 'minecraft'], ['prison', 'minecraft'], ['towny', 'minecraft'],
  ['anarchy', 'minecraft'],
];

export const REGIONS = ['eu-central', 'us-east', 'us-west', 'ap-southeast'] as const;

/** `count` distinct names with their application, sorted by name. */
export function pickServerNames(rng: Prng, count: number): Array<{ name: string; application: string }> {
  const shuffled = rng.shuffle(NAMES);
  const out: Array<{ name: string; application: string }> = [];
  for (let i = 0; i < count; i++) {
    const [name, application] = shuffled[i % shuffled.length]!;
    const round = Math.floor(i / shuffled.length);
    out.push({ name: round === 0 ? name : `${name}-${round + 1}`, application });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function findApplication(ref: unknown): Application | undefined {
  if (typeof ref === 'number') return APPLICATIONS.find((a) => a.id === ref);
  if (typeof ref !== 'string') return undefined;
  return APPLICATIONS.find((a) => a.slug === ref || String(a.id) === ref);
}
