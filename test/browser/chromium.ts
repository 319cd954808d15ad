/**
 * Starts Chromium headless through playwright-core, with a fresh profile and everything that phones home
 * turned off, for the browser tests and the screenshot script. Which Chromium: KMC_CHROMIUM if set; else
 * the one shipped in the npm package @sparticuz/chromium (a dev dependency, unpacked to the temp folder on
 * first use by one process at a time: unpackOnce.ts), so a fresh machine needs nothing but `npm ci`; else
 * the system's (/usr/bin/chromium). A missing browser is an error, not a skip: its absence means the
 * tests did not run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { unpackOnce } from './unpackOnce.ts';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Executable {
  readonly path: string;
  readonly args: readonly string[];
}

/** The Chromium to launch, and the flags it needs. */
export async function findChromium(): Promise<Executable> {
  if (process.env.KMC_CHROMIUM) return { path: process.env.KMC_CHROMIUM, args: ARGS };
  if (process.platform === 'linux') {
    try {
      const { default: packaged } = await import('@sparticuz/chromium');
      // It unpacks into the temp folder on first use; test files started together must not all do so.
      const path = await unpackOnce(tmpdir(), 'kmc-sparticuz-chromium', ['chromium'], () => packaged.executablePath());
      // Built for serverless sandboxes: one process, no GPU, no zygote (its own flags say so).
      return { path, args: [...packaged.args.filter((a) => !a.startsWith('--headless')), ...ARGS] };
    } catch (e) {
      if (!existsSync(SYSTEM_CHROMIUM)) throw new Error(`The Chromium of @sparticuz/chromium did not unpack (${(e as Error).message}) and there is no ${SYSTEM_CHROMIUM}. Run npm ci, or point KMC_CHROMIUM at a Chromium or Chrome binary.`);
    }
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, args: ARGS };
  throw new Error(`No Chromium: the browser tests open the HTML report in a real browser. Run npm ci (it installs @sparticuz/chromium on Linux), install one (apt-get install -y chromium), or point KMC_CHROMIUM at a Chromium or Chrome binary.`);
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1440, height: 900 }): Promise<Browser> {
  const executable = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), 'kmc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: executable.path, headless: true, args: [...executable.args], viewport });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
