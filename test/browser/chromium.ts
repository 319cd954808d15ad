/**
 * Starts the system Chromium (Debian's /usr/bin/chromium, or KMC_CHROMIUM) headless through playwright-core,
 * with a fresh profile and everything that phones home turned off, for the browser tests and the
 * screenshot script. A missing browser is an error with the command that installs it, not a skip:
 * CI installs Chromium, so its absence means the tests did not run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.KMC_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1440, height: 900 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}. The browser tests open the HTML report in a real browser: install it with ` +
        '`apt-get install -y chromium` (Debian/Ubuntu), or point KMC_CHROMIUM at a Chromium or Chrome binary.',
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'kmc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
