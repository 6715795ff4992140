// SARIF 2.1.0 for code scanning (upload with github/codeql-action/upload-sarif). URIs are relative
// paths with forward slashes, which code scanning resolves against the repository root.

import { RULE_IDS, RULES } from '../rules.js';
import type { Formatter } from './report.js';

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

function artifactUri(file: string): string {
  const slashed = file.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(slashed)) return `file:///${encodeURI(slashed)}`;
  if (slashed.startsWith('/')) return `file://${encodeURI(slashed)}`;
  return encodeURI(slashed.replace(/^\.\//, ''));
}

export const sarif: Formatter = (reports) => {
  const rules = RULE_IDS.map((id) => ({
    id,
    shortDescription: { text: RULES[id].summary },
    defaultConfiguration: { level: RULES[id].severity },
  }));
  const results = reports.flatMap(({ file, problems }) => problems.map((p) => ({
    ruleId: p.rule,
    ruleIndex: RULE_IDS.indexOf(p.rule),
    level: p.severity,
    message: { text: p.path === '' ? p.message : `${p.message} [${p.path}]` },
    locations: [{
      physicalLocation: {
        artifactLocation: { uri: artifactUri(file) },
        region: { startLine: p.line, startColumn: p.column, endLine: p.endLine, endColumn: p.endColumn },
      },
      ...(p.path === '' ? {} : { logicalLocations: [{ fullyQualifiedName: p.path, kind: 'member' }] }),
    }],
  })));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'gsh init lint', rules } },
      columnKind: 'utf16CodeUnits',
      results,
    }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};
