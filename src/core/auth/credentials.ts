import { GshError, Exit, UsageError } from '../errors.js';
import { checkNoUserinfo, type CredentialProvider, normalizeBaseUrl } from '../wire/http.js';
import type { ClientFactory } from './agent-credential.js';
import { type ConfigStore, type Profile, profileName, type StoreData } from './store.js';

// Which base URL and credential a command uses (ARCHITECTURE.md "Auth store"). Precedence: an
// explicit --profile > GSH_TOKEN / GSH_API_KEY > GSH_PROFILE > the current profile, because a flag
// typed on this command line beats ambient environment (as in the AWS CLI). The base URL comes from
// --base-url > GSH_BASE_URL > that profile. There is no built-in host.
//
// A credential is bound to a service (issue #28, as gh binds a token to its host): a profile's key
// or agent token goes only to the base URL saved with it at login, and a key from GSH_API_KEY /
// GSH_TOKEN only to GSH_BASE_URL when that is set. Another base URL (a flag, the environment) is an
// error naming both, before any request.

export interface Resolved {
  baseUrl: string;
  credential: CredentialProvider | undefined;
  profile: string;
  /** Human description of where the credential came from. */
  source: string;
  /** Why that credential won (ARCHITECTURE.md "Auth store" precedence), for `auth status`. */
  chosenBy: string;
}

export interface ResolveInput {
  baseUrlFlag?: string;
  profileFlag?: string;
  env: NodeJS.ProcessEnv;
  store: ConfigStore;
  /** Makes the client an agent credential renews its token with. */
  newClient: ClientFactory;
  /** A missing credential is no error (a dry run, a command that needs none). */
  anonymous?: boolean;
  /**
   * The command sends no credential at all (health, discovery): a profile bound to another base
   * URL is left out instead of refused.
   */
  sendsNone?: boolean;
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
  // A user and password in any of them are refused before the URL is compared, printed or sent.
  if (input.baseUrlFlag) checkNoUserinfo(input.baseUrlFlag, '--base-url');
  if (env.GSH_BASE_URL) checkNoUserinfo(env.GSH_BASE_URL, 'GSH_BASE_URL');
  if (!envBase && profile?.base_url) checkNoUserinfo(profile.base_url, `the base URL of profile "${name}" (config.json)`);
  const baseUrl = envBase || profile?.base_url;
  if (!baseUrl) throw new UsageError('no base URL is configured', NO_BASE_URL_HINT);
  if (envSecret && !input.sendsNone && input.baseUrlFlag && env.GSH_BASE_URL && !sameService(input.baseUrlFlag, env.GSH_BASE_URL)) {
    throw new UsageError(
      `${envSecret[0]} is for ${env.GSH_BASE_URL} (GSH_BASE_URL), not ${input.baseUrlFlag} (--base-url): gsh sends a key only to the service it belongs to`,
      `Set GSH_BASE_URL to ${input.baseUrlFlag} together with a key for it, or leave out --base-url.`,
    );
  }
  // A profile's credential is used only where it was logged in to; one of another service is left out.
  const bound = !envSecret && profile && (profile.api_key || profile.agent) ? boundTo(name, profile, baseUrl, input) : true;

  // Said in `auth status`: which credential won, and over what.
  const overridden = input.profileFlag && (env.GSH_TOKEN || env.GSH_API_KEY) ? ` (--profile beats ${env.GSH_TOKEN ? 'GSH_TOKEN' : 'GSH_API_KEY'})` : '';
  let credential: CredentialProvider | undefined;
  let source: string;
  if (envSecret) {
    credential = staticCredential(envSecret[1], `environment (${envSecret[0]})`);
    source = credential.source;
  } else if (!bound) {
    source = 'none';
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

/** Two spellings of one base URL (a trailing slash, the case of the host) are the same service. */
function sameService(a: string, b: string): boolean {
  return normalizeBaseUrl(a) === normalizeBaseUrl(b);
}

/**
 * Whether the profile's credential may go to `baseUrl`: yes where it was logged in; elsewhere a
 * usage error naming both URLs, or no (left out) for a command that sends none. Every profile gsh
 * has saved holds the base URL of its login, so older profiles are bound to that; one with a
 * credential but no base URL (written by hand) is bound to nothing.
 */
function boundTo(name: string, profile: Profile, baseUrl: string, input: ResolveInput): boolean {
  if (profile.base_url && sameService(profile.base_url, baseUrl)) return true;
  if (input.sendsNone) return false;
  const where = input.baseUrlFlag ? '--base-url' : 'GSH_BASE_URL';
  if (!profile.base_url) {
    throw new UsageError(`profile "${name}" holds a credential but no base URL it belongs to, so gsh sends it nowhere`, `Log in again: gsh auth login --profile ${name} --base-url URL`);
  }
  throw new UsageError(
    `profile "${name}" is logged in to ${profile.base_url}, not ${baseUrl} (${where}): gsh sends its credential only to the service it belongs to`,
    `Leave out ${where} to use ${profile.base_url}, or log in to ${baseUrl} with a profile of its own: gsh auth login --profile NAME --base-url ${baseUrl}`,
  );
}
