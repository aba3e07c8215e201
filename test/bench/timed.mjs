import {spawn} from 'node:child_process';

/** Wall-clock ms of one process run as a hook is run: `input` on stdin, its output ignored. */
export function timed(command, args, input, env) {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const child = spawn(command, args, {env, stdio: ['pipe', 'ignore', 'ignore']});
		child.on('error', reject);
		child.on('exit', () => resolve(performance.now() - started));
		child.stdin.on('error', () => {});
		child.stdin.end(input);
	});
}
