import { GshError, Exit, UsageError } from './errors.js';
import type { CredentialProvider } from './http.js';
import type { ClientFactory } from './agent-credential.js';
import { type ConfigStore, type Profile, profileName, type StoreData } from './store.js';

// Which base URL and credential a command uses (DESIGN.md "Auth store"). Precedence: an explicit
// --profile > GSH_TOKEN / GSH_API_KEY > GSH_PROFILE > the current profile, because a flag typed
// on this command line beats ambient environment (as in the AWS CLI). The base URL comes from
// --base-url > GSH_BASE_URL > that profile. There is no built-in host.

export interface Resolved {
  baseUrl: string;
  credential: CredentialProvider | undefined;
  profile: string;
  /** Human description of where the credential came from. */
  source: string;
  /** Why that credential won (DESIGN.md "Auth store" precedence), for `auth status`. */
  chosenBy: string;
}

export interface ResolveInput {
  baseUrlFlag?: string;
  profileFlag?: string;
  env: NodeJS.ProcessEnv;
  store: ConfigStore;
  /** Makes the client an agent credential renews its token with. */
  newClient: ClientFactory;
  /** The command needs no credential (health, discovery). */
  anonymous?: boolean;
}

const NO_BASE_URL_HINT =
  'Set GSH_BASE_URL, pass --base-url URL, or run `gsh auth login` to save one in a profile. ' +
  'To try gsh locally: `gsh sandbox start`.';

export function staticCredential(secret: string, source: string): CredentialProvider {
  return { source, bearer: async () => secret };
}

/** The precedence rule that decided: --profile > GSH_TOKEN/GSH_API_KEY > GSH_PROFILE > current profile. */
function chosenBy(input: ResolveInput, envName: string | undefined, data: StoreData): string {
  const ambient = input.env.GSH_TOKEN ? 'GSH_TOKEN' : input.env.GSH_API_KEY ? 'GSH_API_KEY' : undefined;
  if (input.profileFlag) return ambient ? `--profile (a flag on the command line beats ${ambient})` : '--profile';
  if (envName) return `${envName} (the environment beats GSH_PROFILE and the current profile)`;
  if (input.env.GSH_PROFILE) return 'GSH_PROFILE';
  return data.current ? 'the current profile (gsh auth switch)' : 'the default profile';
}

export async function resolveAuth(input: ResolveInput): Promise<Resolved> {
  const { env } = input;
  const envSecret = input.profileFlag ? undefined : env.GSH_TOKEN ? ['GSH_TOKEN', env.GSH_TOKEN] as const : env.GSH_API_KEY ? ['GSH_API_KEY', env.GSH_API_KEY] as const : undefined;
  const envBase = input.baseUrlFlag || env.GSH_BASE_URL;
  // Only read the config file when the environment does not already say everything.
  const data: StoreData = envSecret && envBase ? { profiles: {} } : input.store.read();
  const name = profileName(input.profileFlag, env, data);
  const profile: Profile | undefined = data.profiles[name];
  if (input.profileFlag && !profile) {
    throw new UsageError(`no profile named "${input.profileFlag}"`, 'List them with `gsh auth profiles`.');
  }
  const baseUrl = envBase || profile?.base_url;
  if (!baseUrl) throw new UsageError('no base URL is configured', NO_BASE_URL_HINT);

  // Said in `auth status`: which credential won, and over what.
  const overridden = input.profileFlag && (env.GSH_TOKEN || env.GSH_API_KEY) ? ` (--profile beats ${env.GSH_TOKEN ? 'GSH_TOKEN' : 'GSH_API_KEY'})` : '';
  let credential: CredentialProvider | undefined;
  let source: string;
  if (envSecret) {
    credential = staticCredential(envSecret[1], `environment (${envSecret[0]})`);
    source = credential.source;
  } else if (profile?.api_key) {
    credential = staticCredential(profile.api_key, `profile "${name}" (API key)${overridden}`);
    source = credential.source;
  } else if (profile?.agent) {
    const { agentCredential } = await import('./agent-credential.js');
    credential = agentCredential(name, baseUrl, input.store, input.newClient);
    source = `${credential.source}${overridden}`;
  } else {
    source = 'none';
  }
  if (!credential && !input.anonymous) {
    throw new GshError(
      'not logged in',
      Exit.auth,
      'Run `gsh auth login` (an API key from the dashboard, read from stdin or a hidden prompt), or set GSH_API_KEY.',
    );
  }
  return { baseUrl, credential, profile: name, source, chosenBy: chosenBy(input, envSecret?.[0], data) };
}
