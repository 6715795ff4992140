import type { RuntimeView } from './runtime-view.js';

// Opening a link for the person: only on an interactive desktop session, never under CI, over
// SSH without a display, or when the caller said --no-browser. The link is always printed too.

export function browserAllowed(rt: RuntimeView, noBrowser = false): boolean {
  const env = rt.env;
  if (noBrowser || !rt.interactive || env.CI || env.BROWSER === 'none') return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return !env.SSH_CONNECTION;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Opens `url` when allowed; failure to launch is not an error, the link is on screen. */
export async function openBrowser(rt: RuntimeView, url: string, noBrowser = false): Promise<void> {
  if (!browserAllowed(rt, noBrowser)) return;
  try {
    const { default: open } = await import('open');
    await open(url);
  } catch {
    rt.note('(could not open a browser; open the link yourself)');
  }
}
