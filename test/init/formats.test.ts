import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/core/version.js';
import { FORMATTERS } from '../../src/init/format/index.js';
import { artifactLocation } from '../../src/init/format/sarif.js';
import { sarifProblems } from '../helpers/sarif.js';
import type { FileReport } from '../../src/init/format/report.js';
import { lintBytes } from '../../src/init/lint.js';
import { RULE_IDS } from '../../src/init/rules.js';

// Every --format over the same findings (issue 4, item 2).

function report(file: string, text: string): FileReport {
  const { problems, lines } = lintBytes(Buffer.from(text, 'utf8'), 'paid');
  return { file, problems, lines };
}

const BAD = report('manifests/bad.yaml', '#service-init\nversion: 2\nfiles:\n  - path: a\n    content: x\n    mode: "999"\nassets:\n  - {url: https://cdn.example.com/a.zip, size: 1}\n');
const CLEAN = report('manifests/ok.yaml', '#service-init\nversion: 1\n');
const REPORTS = [BAD, CLEAN];

describe('compact', () => {
  it('prints file:line:col: severity: message [path] (rule), one line per problem', () => {
    expect(FORMATTERS.compact(REPORTS, { color: false }).split('\n')).toEqual([
      'manifests/bad.yaml:2:10: error: `version` must be 1, found 2 [version] (version)',
      "manifests/bad.yaml:6:11: error: mode `999` is not an octal string like '0644' (3 or 4 digits 0-7) [files[0].mode] (file-mode)",
      'manifests/bad.yaml:8:5: warning: `assets[0]` has no checksum; add sha256 (recommended) so a changed download is caught [assets[0]] (no-checksum)',
      '',
    ]);
  });
});

describe('json', () => {
  it('has one {file, problems} per input with the documented keys', () => {
    const parsed = JSON.parse(FORMATTERS.json(REPORTS, { color: false })) as { file: string; problems: Record<string, unknown>[] }[];
    expect(parsed.map((r) => r.file)).toEqual(['manifests/bad.yaml', 'manifests/ok.yaml']);
    expect(parsed[1]?.problems).toEqual([]);
    expect(parsed[0]?.problems[1]).toEqual({
      severity: 'error', rule: 'file-mode', path: 'files[0].mode', line: 6, column: 11, endLine: 6, endColumn: 16,
      message: "mode `999` is not an octal string like '0644' (3 or 4 digits 0-7)",
    });
  });
});

describe('stylish', () => {
  const out = FORMATTERS.stylish(REPORTS, { color: false });

  it('groups by file, shows the source line with a caret under the value, and sums up', () => {
    expect(out).toContain('manifests/bad.yaml\n  2:10  error    `version` must be 1, found 2 [version]  version\n');
    expect(out).toContain('    6 |     mode: "999"\n      |           ^~~~~\n');
    expect(out).not.toContain('manifests/ok.yaml');
    expect(out.trimEnd().split('\n').at(-1)).toBe('✖ 3 problems (2 errors, 1 warning)');
  });

  it('colours only when asked', () => {
    expect(out).not.toContain('\u001b[');
    expect(FORMATTERS.stylish(REPORTS, { color: true })).toContain('\u001b[31merror');
  });

  it('prints nothing for clean input', () => {
    expect(FORMATTERS.stylish([CLEAN], { color: false })).toBe('');
  });
});

describe('github', () => {
  it('writes workflow commands with escaped properties and data, then a summary line', () => {
    const odd = { ...BAD, file: 'a,b:c%.yaml', problems: [{ ...BAD.problems[0]!, message: 'two\nlines 100%' }] };
    const lines = FORMATTERS.github([odd, CLEAN], { color: false }).trimEnd().split('\n');
    expect(lines[0]).toBe('::error file=a%2Cb%3Ac%25.yaml,line=2,endLine=2,col=10,endColumn=11,title=gsh init lint (version)::two%0Alines 100%25 [version]');
    expect(lines.at(-1)).toMatch(/^gsh init lint: 1 error and 0 warnings in 1 of 2 files/);
  });

  it('says so when clean', () => {
    expect(FORMATTERS.github([CLEAN], { color: false })).toBe('gsh init lint: no problems in 1 file\n');
  });
});

interface SarifLog {
  $schema: string;
  version: string;
  runs: {
    tool: { driver: { name: string; version: string; semanticVersion: string; informationUri: string;
      rules: { id: string; shortDescription: { text: string }; fullDescription: { text: string };
        help: { text: string; markdown: string }; helpUri: string; defaultConfiguration: { level: string } }[] } };
    invocations: { executionSuccessful: boolean; toolExecutionNotifications?: { level: string; message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }[] }[];
    originalUriBaseIds?: Record<string, { uri: string }>;
    results: { ruleId: string; ruleIndex: number; level: string; message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: Record<string, number> } }[] }[];
  }[];
}

describe('sarif', () => {
  // The properties SARIF 2.1.0 requires (sarif-schema-2.1.0.json "required" lists) and the ones
  // GitHub code scanning reads: tool.driver.name, rules, results with ruleId, message.text and a
  // physical location with a repository-relative URI and a 1-based region.
  const ROOT = '/work space/repo';
  const text = FORMATTERS.sarif([...REPORTS, report('C:\\work\\w.yaml', 'x')], { color: false, srcRoot: ROOT });
  const log = JSON.parse(text) as SarifLog;

  it('is valid against the official SARIF 2.1.0 schema, with and without failures', () => {
    expect(sarifProblems(text)).toEqual([]);
    expect(sarifProblems(FORMATTERS.sarif([], { color: false, srcRoot: ROOT, failures: [{ file: 'gone.yaml', message: 'cannot read gone.yaml: no such file or directory' }] }))).toEqual([]);
    expect(sarifProblems(FORMATTERS.sarif([CLEAN], { color: false }))).toEqual([]);
    // The check can fail: a level SARIF does not define, a rule without an id.
    const broken = JSON.parse(text) as { runs: { results: { level: string }[]; tool: { driver: { rules: { id?: string }[] } } }[] };
    broken.runs[0]!.results[0]!.level = 'fatal';
    delete broken.runs[0]!.tool.driver.rules[0]!.id;
    const problems = sarifProblems(JSON.stringify(broken)).join('\n');
    expect(problems).toContain('/runs/0/results/0/level');
    expect(problems).toContain("/runs/0/tool/driver/rules/0: must have required property 'id'");
  });

  it('has the required top-level shape and names the tool, its version and its documentation', () => {
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
    expect(log.runs).toHaveLength(1);
    const { driver } = log.runs[0]!.tool;
    expect(driver.name).toBe('gsh init lint');
    expect(driver.version).toBe(VERSION);
    expect(driver.semanticVersion).toBe(VERSION);
    // No web address to point at: the help is inline.
    expect(driver.informationUri).toBeUndefined();
    expect(log.runs[0]?.invocations).toEqual([{ executionSuccessful: true }]);
  });

  it('lists every rule once, with a level, a description and its help inline (naming the command that prints it), no helpUri', () => {
    const rules = log.runs[0]?.tool.driver.rules ?? [];
    expect(rules.map((r) => r.id)).toEqual(RULE_IDS);
    for (const rule of rules) {
      expect(['error', 'warning']).toContain(rule.defaultConfiguration.level);
      expect(rule.shortDescription.text.length).toBeGreaterThan(0);
      expect(rule.fullDescription.text).toContain(rule.shortDescription.text);
      expect(rule.help.text.length).toBeGreaterThan(20);
      expect(rule.helpUri).toBeUndefined();
      expect(rule.help.text).toContain(`(gsh init rules ${rule.id})`);
    }
  });

  it('gives each result a rule, a level, a message and a 1-based region', () => {
    const run = log.runs[0]!;
    expect(run.results).toHaveLength(BAD.problems.length + 2);
    for (const result of run.results) {
      expect(run.tool.driver.rules[result.ruleIndex]?.id).toBe(result.ruleId);
      expect(['error', 'warning']).toContain(result.level);
      expect(result.message.text.length).toBeGreaterThan(0);
      const { artifactLocation, region } = result.locations[0]!.physicalLocation;
      expect(artifactLocation.uri).not.toContain('\\');
      expect(region['startLine']).toBeGreaterThanOrEqual(1);
      expect(region['startColumn']).toBeGreaterThanOrEqual(1);
      expect(region['endLine']).toBeGreaterThanOrEqual(region['startLine']!);
    }
    expect(run.results[0]?.locations[0]?.physicalLocation.artifactLocation).toEqual({ uri: 'manifests/bad.yaml', uriBaseId: '%SRCROOT%' });
    expect(run.results.at(-1)?.locations[0]?.physicalLocation.artifactLocation).toEqual({ uri: 'file:///C:/work/w.yaml' });
  });

  it('percent-encodes paths relative to %SRCROOT%, given absolutely in originalUriBaseIds', () => {
    expect(log.runs[0]?.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///work%20space/repo/' } });
    expect(artifactLocation('./dir with space/a#1?.yaml', ROOT)).toEqual({ uri: 'dir%20with%20space/a%231%3F.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('50%.yaml', ROOT)).toEqual({ uri: '50%25.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('/work space/repo/m/é.yaml', ROOT)).toEqual({ uri: 'm/%C3%A9.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('/work space/repository/x.yaml', ROOT)).toEqual({ uri: 'file:///work%20space/repository/x.yaml' });
    expect(artifactLocation('<stdin>', ROOT)).toEqual({ uri: '%3Cstdin%3E', uriBaseId: '%SRCROOT%' });
  });

  it('marks the run unsuccessful and names each input it could not read (never a clean report)', () => {
    const failed = JSON.parse(FORMATTERS.sarif([CLEAN], {
      color: false, srcRoot: ROOT, failures: [{ file: 'locked.yaml', message: 'cannot read locked.yaml: permission denied' }],
    })) as SarifLog;
    expect(failed.runs[0]?.invocations).toEqual([{
      executionSuccessful: false,
      toolExecutionNotifications: [{
        level: 'error',
        message: { text: 'cannot read locked.yaml: permission denied' },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'locked.yaml', uriBaseId: '%SRCROOT%' } } }],
      }],
    }]);
  });
});
