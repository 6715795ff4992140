import { spawnSync } from 'node:child_process';

/**
 * Whether a program is on PATH. Tests that drive a tool a fresh machine may lack (zsh, fish, man,
 * mandoc) run where it is installed (CI installs them) and otherwise report themselves skipped.
 */
export function installed(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

/** A describe title that carries the reason it is skipped, so the report says why. */
export function needing(title: string, ...programs: string[]): { title: string; missing: boolean } {
  const absent = programs.filter((p) => !installed(p));
  return { title: absent.length === 0 ? title : `${title} (skipped: ${absent.join(', ')} not installed)`, missing: absent.length > 0 };
}

/** A test title that says why the test is skipped when `skip` holds (the run's end lists it: test/helpers/skip-reasons.ts). */
export function skipTitle(title: string, skip: boolean, reason: string): string {
  return skip ? `${title} (skipped: ${reason})` : title;
}
