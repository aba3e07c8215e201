import {buildSync} from 'esbuild';
import {fileURLToPath} from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const built = new Map<string, string>();

/**
 * Bundles a child script from test/helpers/children into dist/test-children (inside the package,
 * so better-sqlite3 resolves) and returns its path; tests spawn it with `node`.
 */
export function childScript(name: 'fold' | 'lock-holder' | 'hook-writer' | 'process-times'): string {
	const existing = built.get(name);
	if (existing) return existing;
	const outfile = `${ROOT}dist/test-children/${name}-${process.pid}.mjs`;
	buildSync({
		entryPoints: [`${ROOT}test/helpers/children/${name}.ts`],
		bundle: true,
		format: 'esm',
		platform: 'node',
		target: 'node20',
		packages: 'external',
		outfile,
		logLevel: 'warning',
	});
	built.set(name, outfile);
	return outfile;
}
