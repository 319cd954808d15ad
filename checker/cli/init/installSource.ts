/**
 * Where the running kmc was installed from, as a dependency a new project can declare (`kmc init`): the
 * same git URL, tarball or registry range the installing project declared, so the project `kmc init`
 * writes installs the very kmc that wrote it, published or not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface InstallSource {
  /** The value for `devDependencies[name]`. */
  readonly dependency: string;
  /** Said to the user when the dependency only resolves on this machine. */
  readonly note?: string;
}

/** The folder holding kmc's package.json (a checkout, or node_modules/<name> of an install). */
export function kmcPackageRoot(): string {
  // checker/cli/init/ in a checkout, dist/checker/cli/init/ in the package.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    dir = dirname(dir);
    if (existsSync(join(dir, 'package.json'))) {
      const pkg = readJson(join(dir, 'package.json')) as { name?: string } | null;
      if (pkg?.name) return dir;
    }
  }
  return dirname(dirname(dirname(fileURLToPath(import.meta.url))));
}

export function installSource(name: string, version: string, root = kmcPackageRoot()): InstallSource {
  const marker = `${sep}node_modules${sep}`;
  const at = root.lastIndexOf(marker);
  if (at < 0) {
    return {
      dependency: `file:${root}`,
      note: `kmc runs from the folder ${root}, so the project depends on that folder (npm links it). On another machine, and in the workflow, install it from a git URL or an npm pack tarball instead (README: Install).`,
    };
  }
  const project = root.slice(0, at);
  const declared = declaredIn(join(project, 'package.json'), name);
  const resolved = declared ?? lockedIn(join(project, 'node_modules', '.package-lock.json'), name);
  if (resolved === null || isRange(resolved)) return { dependency: `^${version}` };
  if (resolved.startsWith('file:')) {
    const path = resolved.slice('file:'.length);
    const absolute = isAbsolute(path) ? path : resolve(project, path);
    return {
      dependency: `file:${absolute}`,
      note: `kmc was installed from ${absolute}, so the project depends on that file. On another machine, and in the workflow, install it from a git URL or a tarball they can reach.`,
    };
  }
  return { dependency: resolved };
}

function declaredIn(packageJson: string, name: string): string | null {
  const pkg = readJson(packageJson) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> } | null;
  return pkg?.devDependencies?.[name] ?? pkg?.dependencies?.[name] ?? null;
}

/** npm's record of what it installed (`resolved`: a tarball URL, `git+…#commit` or `file:…`). */
function lockedIn(lockFile: string, name: string): string | null {
  const lock = readJson(lockFile) as { packages?: Record<string, { resolved?: string }> } | null;
  const resolved = lock?.packages?.[`node_modules/${name}`]?.resolved;
  if (resolved === undefined) return null;
  // A tarball from a registry stands for the version range.
  return /^https?:\/\/.*\/-\/[^/]+\.tgz$/.test(resolved) ? null : resolved;
}

/** A registry version range (`^0.1.0`, `~1`, `latest`), not a URL, path or git spec. */
function isRange(spec: string): boolean {
  return !/[:/]/.test(spec);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}
