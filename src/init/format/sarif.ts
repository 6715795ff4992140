// SARIF 2.1.0 for code scanning (upload with github/codeql-action/upload-sarif). Inputs are
// percent-encoded paths relative to %SRCROOT% (the directory gsh ran in, given absolutely in
// originalUriBaseIds), which code scanning resolves against the repository root. An input that
// could not be read makes the invocation unsuccessful, with a notification naming it, so a CI
// step never uploads "no problems" for a file nobody read.

import { pathToFileURL } from 'node:url';
import { VERSION } from '../../core/version.js';
import type { InputFailure } from '../inputs.js';
import { RULE_IDS, RULES } from '../rules.js';
import type { Formatter } from './report.js';
import { ruleHelpCommand } from './rule-docs.js';

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
const SRCROOT = '%SRCROOT%';

interface ArtifactLocation {
  uri: string;
  uriBaseId?: string;
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** A relative path against %SRCROOT% where the file is under it, else an absolute file URI. */
export function artifactLocation(file: string, srcRoot?: string): ArtifactLocation {
  const slashed = file.replace(/\\/g, '/');
  const drive = /^([A-Za-z]:)(\/.*)$/.exec(slashed);
  if (drive) return { uri: `file:///${drive[1] as string}${encodePath(drive[2] as string)}` };
  if (slashed.startsWith('/')) {
    const root = srcRoot?.replace(/\\/g, '/').replace(/\/?$/, '/');
    if (root === undefined || !slashed.startsWith(root)) return { uri: `file://${encodePath(slashed)}` };
    return { uri: encodePath(slashed.slice(root.length)), uriBaseId: SRCROOT };
  }
  return { uri: encodePath(slashed.replace(/^(?:\.\/)+/, '')), uriBaseId: SRCROOT };
}

function notification(failure: InputFailure, srcRoot?: string) {
  return {
    level: 'error',
    message: { text: failure.message },
    locations: [{ physicalLocation: { artifactLocation: artifactLocation(failure.file, srcRoot) } }],
  };
}

export const sarif: Formatter = (reports, { failures = [], srcRoot, tool = 'gsh init lint' }) => {
  const rules = RULE_IDS.map((id) => ({
    id,
    shortDescription: { text: RULES[id].summary },
    fullDescription: { text: `${RULES[id].summary} ${RULES[id].help}` },
    // Inline, with the command that prints it: no helpUri, as there is no public page to point at.
    help: { text: `${RULES[id].help} (${ruleHelpCommand(id)})`, markdown: `${RULES[id].help} (\`${ruleHelpCommand(id)}\`)` },
    defaultConfiguration: { level: RULES[id].severity },
  }));
  const results = reports.flatMap(({ file, problems }) => problems.map((p) => ({
    ruleId: p.rule,
    ruleIndex: RULE_IDS.indexOf(p.rule),
    level: p.severity,
    message: { text: p.path === '' ? p.message : `${p.message} [${p.path}]` },
    locations: [{
      physicalLocation: {
        artifactLocation: artifactLocation(file, srcRoot),
        region: { startLine: p.line, startColumn: p.column, endLine: p.endLine, endColumn: p.endColumn },
      },
      ...(p.path === '' ? {} : { logicalLocations: [{ fullyQualifiedName: p.path, kind: 'member' }] }),
    }],
  })));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: {
        driver: { name: tool, version: VERSION, semanticVersion: VERSION, rules },
      },
      invocations: [{
        executionSuccessful: failures.length === 0,
        ...(failures.length === 0 ? {} : { toolExecutionNotifications: failures.map((f) => notification(f, srcRoot)) }),
      }],
      ...(srcRoot === undefined ? {} : {
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(srcRoot.endsWith('/') ? srcRoot : `${srcRoot}/`).href } },
      }),
      columnKind: 'utf16CodeUnits',
      results,
    }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};
