import {execFileSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';

/** End-to-end tests run bin/controlroom, which runs the bundle: build it once before any test. */
export default function setup(): void {
	const root = fileURLToPath(new URL('../..', import.meta.url));
	execFileSync('npm', ['run', '--silent', 'build'], {cwd: root, stdio: 'inherit'});
}
