// One reconciler pass with 1,000 extra processes in the table, through the built binary.
// `reconcile --once --json` reports the pass's own time (spool fold, /proc scan, ledger checks);
// the wall time of the whole command is printed beside `node -e 0` as the baseline.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readdirSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const EXTRA = 1000;
const ROUNDS = 7;

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const processCount = () => readdirSync('/proc').filter(name => /^\d+$/.test(name)).length;

function wall(command, args, env) {
	const start = process.hrtime.bigint();
	const result = spawnSync(command, args, {encoding: 'utf8', env});
	if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
	return {ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: result.stdout};
}

/** Passes of one long-running `reconcile` (the board's case: a warm process), 20 ms apart. */
async function warmPasses(ledger, env, count) {
	const child = spawn(process.execPath, [BIN, 'reconcile', '--json', '--interval', '0.05', '--ledger', ledger], {
		env,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const times = [];
	let buffered = '';
	await new Promise(resolve => {
		child.stdout.on('data', chunk => {
			buffered += chunk;
			const lines = buffered.split('\n');
			buffered = lines.pop();
			for (const line of lines) times.push(JSON.parse(line).elapsedMs);
			if (times.length >= count) resolve();
		});
	});
	child.kill('SIGTERM');
	await new Promise(resolve => child.once('exit', resolve));
	return median(times.slice(1));
}

function passes(ledger, env) {
	const walls = [];
	const inside = [];
	let processes = 0;
	for (let round = 0; round < ROUNDS; round += 1) {
		const run = wall(process.execPath, [BIN, 'reconcile', '--once', '--json', '--ledger', ledger], env);
		const result = JSON.parse(run.stdout);
		walls.push(run.ms);
		inside.push(result.elapsedMs);
		processes = result.processes;
	}
	return {wall: median(walls), pass: median(inside), processes};
}

export default async function bench() {
	const home = mkdtempSync(join(tmpdir(), 'cr-bench-reconcile-'));
	const env = {...process.env, CONTROLROOM_HOME: home};
	const ledger = join(home, 'ledger.db');
	const baseline = median(Array.from({length: ROUNDS}, () => wall(process.execPath, ['-e', '0']).ms));
	const before = passes(ledger, env);

	// 1,000 sleeping processes under one shell, which reaps them when told to stop.
	const before_count = processCount();
	const shell = spawn(
		'sh',
		['-c', `trap 'kill $(jobs -p) 2>/dev/null; wait; exit 0' TERM; for i in $(seq ${EXTRA}); do sleep 120 & done; wait`],
		{
			stdio: 'ignore',
		},
	);
	const deadline = Date.now() + 30_000;
	while (processCount() < before_count + EXTRA && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50));
	try {
		const after = passes(ledger, env);
		const warm = await warmPasses(ledger, env, 21);
		console.log(`node -e 0 (baseline)            ${baseline.toFixed(1)} ms wall`);
		console.log(
			`reconcile --once, ${String(before.processes).padStart(4)} processes  pass ${before.pass.toFixed(2)} ms, wall ${before.wall.toFixed(1)} ms (${(before.wall / baseline).toFixed(2)}x node -e 0)`,
		);
		console.log(
			`reconcile --once, ${String(after.processes).padStart(4)} processes  pass ${after.pass.toFixed(2)} ms, wall ${after.wall.toFixed(1)} ms (${(after.wall / baseline).toFixed(2)}x node -e 0)`,
		);
		console.log(
			`one pass with ${EXTRA} extra processes: ${after.pass.toFixed(2)} ms cold (first pass of a fresh process, median of ${ROUNDS}), ${warm.toFixed(2)} ms warm (median of 20 passes in one process); target well under 50 ms`,
		);
	} finally {
		shell.kill('SIGTERM');
		await new Promise(resolve => shell.once('exit', resolve));
	}
}
