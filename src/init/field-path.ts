// Field paths in the contract's form: `assets[0].size`, `env.JAVA_OPTS`, `env["my key"]`.

export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
