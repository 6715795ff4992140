// The marketplace the sandbox knows (03-endpoints-part-b.md "Addons", "Custom packs"): a few
// projects per provider with loaders, types, versions and required dependencies. Ids are the
// ones the registry's examples use, so documented commands work against the sandbox.

export interface Project {
  id: string;
  source: 'provider_a' | 'provider_b' | 'provider_c';
  slug: string;
  title: string;
  type: 'mod' | 'plugin' | 'datapack' | 'modpack';
  loaders: string[];
  versions: string[];
  dependencies: string[];
  /** Modpacks: the projects they contain. */
  contains?: string[];
}

export const PROJECTS: readonly Project[] = [
  { id: 'P7dR8mSH', source: 'provider_a', slug: 'fabric-api', title: 'Fabric API', type: 'mod', loaders: ['fabric', 'quilt'], versions: ['0.100.0', '0.102.0'], dependencies: [] },
  { id: 'AANobbMI', source: 'provider_a', slug: 'sodium', title: 'Sodium', type: 'mod', loaders: ['fabric', 'quilt', 'neoforge'], versions: ['mc1.21-0.5.11', 'mc1.21-0.6'], dependencies: [] },
  { id: 'gvQqBUqZ', source: 'provider_a', slug: 'lithium', title: 'Lithium', type: 'mod', loaders: ['fabric'], versions: ['mc1.21-0.13.0'], dependencies: ['P7dR8mSH'] },
  { id: 'jei', source: 'provider_b', slug: 'jei', title: 'Just Enough Items', type: 'mod', loaders: ['forge', 'neoforge'], versions: ['19.0.0'], dependencies: [] },
  { id: '1234', source: 'provider_c', slug: 'worldedit', title: 'WorldEdit', type: 'plugin', loaders: ['paper', 'spigot'], versions: ['7.3.4'], dependencies: [] },
  { id: '5678', source: 'provider_c', slug: 'luckperms', title: 'LuckPerms', type: 'plugin', loaders: ['paper', 'spigot'], versions: ['5.4.131'], dependencies: [] },
  { id: 'vtrdp', source: 'provider_a', slug: 'vanilla-tweaks', title: 'Vanilla Tweaks', type: 'datapack', loaders: ['datapack'], versions: ['1.21'], dependencies: [] },
  { id: '1KVo5zza', source: 'provider_a', slug: 'fabulously-optimized', title: 'Fabulously Optimized', type: 'modpack', loaders: ['fabric'], versions: ['6.0.0'], dependencies: [], contains: ['P7dR8mSH', 'AANobbMI', 'gvQqBUqZ'] },
  { id: 'abc', source: 'provider_b', slug: 'all-the-mods', title: 'All the Mods', type: 'modpack', loaders: ['neoforge'], versions: ['10.0'], dependencies: [], contains: ['jei', 'AANobbMI'] },
];

export const PROVIDERS = ['provider_a', 'provider_b', 'provider_c'] as const;

export const findProject = (id: string, source?: string): Project | undefined =>
  PROJECTS.find((p) => p.id === id && (source === undefined || p.source === source));

/** Software catalogue for set-version and software/versions: software → version → builds. */
export const SOFTWARE: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>> = {
  paper: { '1.21.4': [200, 201, 232], '1.21.1': [130, 131] },
  purpur: { '1.21.4': [2400] },
  vanilla: { '1.21.4': [1], '1.20.6': [1] },
  fabric: { '1.21.4': [16], '1.21.1': [15] },
  forge: { '1.21.1': [52] },
};
