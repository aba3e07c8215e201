// Wrapper overhead: `controlroom run -- true` against `true` alone and `node -e 0`, through the
// built binary, on a scratch ledger. Prints medians and ratios; never fails on timing.
import {spawnSync} from 'node:child_process';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const ROUNDS = 11;
const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function wall(command, args, env) {
	const start = process.hrtime.bigint();
	const result = spawnSync(command, args, {stdio: 'ignore', env});
	if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
	return Number(process.hrtime.bigint() - start) / 1e6;
}

export default async function bench() {
	const home = mkdtempSync(join(tmpdir(), 'cr-bench-wrapper-'));
	const env = {...process.env, CONTROLROOM_HOME: home};
	const ledger = join(home, 'ledger.db');
	wall(process.execPath, [BIN, 'run', '--ledger', ledger, '--', 'true'], env); // creates the ledger
	const bare = median(Array.from({length: ROUNDS}, () => wall('true', [])));
	const node = median(Array.from({length: ROUNDS}, () => wall(process.execPath, ['-e', '0'])));
	const wrapped = median(
		Array.from({length: ROUNDS}, () => wall(process.execPath, [BIN, 'run', '--ledger', ledger, '--', 'true'], env)),
	);
	console.log(`true                        ${bare.toFixed(1)} ms`);
	console.log(`node -e 0                   ${node.toFixed(1)} ms`);
	console.log(`controlroom run -- true     ${wrapped.toFixed(1)} ms`);
	console.log(
		`overhead: ${(wrapped - bare).toFixed(1)} ms; ratio run/true ${(wrapped / bare).toFixed(1)}x, run/(node -e 0) ${(wrapped / node).toFixed(2)}x (median of ${ROUNDS})`,
	);
}
