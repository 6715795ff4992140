// Identity assertions (ID-JAG) for the sandbox: a JWT whose payload names the issuer, the audience
// (the API base), the user's e-mail and when they signed in at the provider. The sandbox plays the
// trusted provider too, so it mints unsigned ones (`alg: none`) and checks only the claims the
// contract names (01-general-contract.md "Agent registration flow": trusted issuer, audience,
// login no older than one hour).

export interface IdJag {
  iss: string;
  aud: string;
  email: string;
  /** Unix seconds of the sign-in at the provider. */
  auth_time: number;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function mintIdJag(claims: IdJag): string {
  return `${b64({ alg: 'none', typ: 'oauth-id-jag+jwt' })}.${b64({ ...claims, iat: Math.floor(Date.now() / 1000) })}.`;
}

export function parseIdJag(token: string): IdJag | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const p = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Partial<IdJag>;
    if (typeof p.iss !== 'string' || typeof p.aud !== 'string' || typeof p.email !== 'string' || typeof p.auth_time !== 'number') return undefined;
    return { iss: p.iss, aud: p.aud, email: p.email, auth_time: p.auth_time };
  } catch {
    return undefined;
  }
}
