/**
 * `kmc init [dir]`: a spec project a user can start from: package.json (depending on this package and
 * immutable), tsconfig.json, an example spec with presets, a suite and a CI workflow. Never overwrites.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { makeDirectory } from '../outputPath.ts';
import { UserError, choices } from '../../run/userError.ts';
import { kmcVersion } from '../version.ts';
import { EXAMPLE_SPEC } from '../init/exampleSpec.ts';
import { WORKFLOW } from '../init/workflow.ts';
import { installSource } from '../init/installSource.ts';

export const PACKAGE_NAME = 'kafka-model-checker';

/** `kmc` is the dependency to declare for this package (a range, git URL or tarball: installSource.ts). */
export function projectFiles(name: string, kmc: string): Record<string, string> {
  const json = (x: unknown) => `${JSON.stringify(x, null, 2)}\n`;
  return {
    'package.json': json({
      name,
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: { check: 'kmc ci', typecheck: 'tsc --noEmit -p .' },
      devDependencies: { [PACKAGE_NAME]: kmc, immutable: '^5.2.1', typescript: '^5.9.0' },
      // npm 11 runs no dependency's install script unless listed; esbuild (under tsx) works without its own.
      allowScripts: { esbuild: false },
    }),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
      },
      include: ['specs'],
    }),
    'specs/mutex.ts': EXAMPLE_SPEC,
    'kmc.suite.yaml': `# The checks \`kmc ci\` runs, each with the verdict it must keep (kmc ci --help).
version: 1
checks:
  - spec: ./specs/mutex.ts
    preset: racy
    expect: { violates: MutualExclusion }   # the known bug: test-then-set is not atomic
  - spec: ./specs/mutex.ts
    preset: atomic
    expect: holds                           # the fix
`,
    '.github/workflows/kmc.yml': WORKFLOW,
    '.gitignore': 'node_modules/\nkmc-out/\n',
  };
}

export const initCommand: KmcCommand = {
  command: 'init [dir]',
  describe: 'Start a spec project in DIR (default: here): package.json, tsconfig.json, an example spec with presets, a suite and a GitHub workflow running kmc ci',
  builder: (y) => y.positional('dir', { type: 'string', default: '.', describe: 'The folder to write the project into (made if missing)' }),
  run: async (argv) => {
    const dir = resolve(String(argv.dir ?? '.'));
    const source = installSource(PACKAGE_NAME, kmcVersion());
    const files = projectFiles(basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-') || 'protocol-designs', source.dependency);
    const taken = Object.keys(files).filter((f) => existsSync(join(dir, f)));
    if (taken.length > 0) throw new UserError(`kmc init does not overwrite files: ${choices(taken)} already exist${taken.length === 1 ? 's' : ''} in ${dir}.`);
    for (const [file, text] of Object.entries(files)) {
      makeDirectory(dirname(join(dir, file)), 'kmc init');
      writeFileSync(join(dir, file), text);
    }
    const cd = relative(process.cwd(), dir);
    process.stdout.write(
      [
        `Wrote ${Object.keys(files).join(', ')} in ${dir}.`,
        `The project depends on ${PACKAGE_NAME} ${source.dependency}${source.note ? `: ${source.note}` : ''}`,
        'Next:',
        ...(cd ? [`  cd ${cd}`] : []),
        '  npm install',
        '  npx kmc check ./specs/mutex.ts --preset racy   # finds MutualExclusion',
        '  npx kmc ci                                      # the suite in kmc.suite.yaml',
        '',
      ].join('\n'),
    );
    return ExitCode.Holds;
  },
};
