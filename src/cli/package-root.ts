import {existsSync} from 'node:fs';
import {dirname, join} from 'node:path';
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
