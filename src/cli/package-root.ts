import {existsSync, readFileSync, realpathSync} from 'node:fs';
import {delimiter, dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

/** The package's own folder, found from this module whether it runs bundled (dist/) or from source. */
export function packageRoot(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	while (!existsSync(join(dir, 'package.json'))) {
		const parent = dirname(dir);
		if (parent === dir) throw new Error('controlroom: cannot find its package folder');
		dir = parent;
	}
	return dir;
}

/** This package's version, from its package.json. */
export function packageVersion(): string {
	return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {version: string}).version;
}

function realpathOrNull(path: string): string | null {
	try {
		return realpathSync(path);
	} catch {
		return null;
	}
}

/**
 * How a person types this controlroom in a hint: `controlroom` when that name on PATH is this
 * package's binary (a global install, `npm link`), else `node /path/to/bin/controlroom` (a clone
 * started with `npm start`), so a hint never names a command the shell cannot find.
 */
export function invocation(env: NodeJS.ProcessEnv = process.env): string {
	const bin = join(packageRoot(), 'bin', 'controlroom');
	// The installed name points at the sh entry (bin/controlroom.sh, docs/tmux.md), which runs bin/controlroom.
	const own = [realpathOrNull(bin), realpathOrNull(`${bin}.sh`)];
	for (const dir of (env['PATH'] ?? '').split(delimiter)) {
		if (dir === '') continue;
		const found = realpathOrNull(join(dir, 'controlroom'));
		if (found !== null) return own.includes(found) ? 'controlroom' : `node ${bin}`;
	}
	return `node ${bin}`;
}
