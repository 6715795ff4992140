import { pathParams } from '../../operations/leaves.js';
import { CHECKS, pathIdProblem } from '../../core/flags/checks.js';
import { UsageError } from '../../core/errors.js';
import type { Feature } from '../feature.js';

// `params`: path ids other than server_id are positional arguments, checked before sending.

const kebab = (name: string) => name.replace(/_/g, '-');

export const pathArguments: Feature = {
  name: 'path arguments',
  flags({ cmd, leaf }) {
    for (const p of leaf.op.params ?? []) cmd.argument(`<${kebab(p.name)}>`, p.description);
  },
  targets(d) {
    const { op } = d.leaf;
    (op.params ?? []).forEach((p, i) => {
      const value = d.args[i] as string;
      const problem = value === undefined ? undefined : pathIdProblem(value, p.check === 'absolute-path') ?? (p.check ? CHECKS[p.check](value) : undefined);
      if (problem) throw new UsageError(`<${kebab(p.name)}> ${problem} (got "${value}")`);
      d.params[p.name] = value;
    });
    const names = (op.params ?? []).map((p) => p.name);
    const missing = pathParams(op.path).filter((p) => p !== 'server_id' && !names.includes(p));
    if (missing.length) throw new Error(`registry: ${op.path} does not declare ${missing.join(', ')}`);
  },
};
