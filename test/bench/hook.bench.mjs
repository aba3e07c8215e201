// Benchmarks the hooks as the agent waits for them, every figure against baselines measured in the
// same run (the machine is shared, so only ratios in one run mean anything):
// - sequential: the spool hook (sh, the default install) and the direct Node hook (`--direct`)
//   against `sh -c true` and a bare `node -e 0`, alternated so drift in load hits all alike;
// - 8 and 32 concurrent spool-hook writers: median and p99;
// - a real `claude -p` run (offline harness, one Bash call) with our hooks installed against one
//   without, 7 runs each, alternated (skipped with a note when the real clients are not installed).
// Never fails on timing.
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {homedir, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const SPOOL_HOOK = fileURLToPath(new URL('../../dist/producers/spool-hook.sh', import.meta.url));
const CLAUDE_OFFLINE = fileURLToPath(new URL('../fixtures/realclients/claude-offline.sh', import.meta.url));
const REALCLIENTS = process.env.CONTROLROOM_REALCLIENTS ?? join(homedir(), '.cache', 'controlroom-realclients');
const PAYLOAD = readFileSync(new URL('../fixtures/claude/PreToolUse.json', import.meta.url));
const ROUNDS = Number(process.env.BENCH_HOOK_ROUNDS ?? 40);
const CALLS_PER_WRITER = Number(process.env.BENCH_HOOK_CALLS ?? 40);
const CLAUDE_RUNS = Number(process.env.BENCH_CLAUDE_RUNS ?? 7);

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

function percentile(values, fraction) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

const ms = value => `${value.toFixed(1)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

export default async function bench() {
	const home = mkdtempSync(join(tmpdir(), 'cr-bench-hook-'));
	const env = {...process.env, CONTROLROOM_HOME: home, CLAUDE_PID: '4242'};
	try {
		// A ledger exists (created through the public CLI), so the direct hook measures its normal path.
		spawnSync(
			process.execPath,
			[BIN, 'ingest', fileURLToPath(new URL('../fixtures/claude/SessionStart.json', import.meta.url))],
			{
				env,
			},
		);
		const runs = {
			'sh -c true': () => timed('/bin/sh', ['-c', 'true'], '', env),
			'node -e 0': () => timed(process.execPath, ['-e', '0'], '', env),
			'spool hook': () => timed('/bin/sh', [SPOOL_HOOK], PAYLOAD, env),
			'direct Node hook': () => timed(process.execPath, [BIN, 'hook'], PAYLOAD, env),
		};
		const times = Object.fromEntries(Object.keys(runs).map(name => [name, []]));
		for (const run of Object.values(runs)) await run(); // warm the file cache
		for (let round = 0; round < ROUNDS; round += 1) {
			for (const [name, run] of Object.entries(runs)) times[name].push(await run());
		}
		const median = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, percentile(values, 0.5)]));
		console.log(
			`sequential, ${ROUNDS} rounds, medians: ${Object.entries(median)
				.map(([name, value]) => `${name} ${ms(value)}`)
				.join('; ')}`,
		);
		console.log(
			`ratio spool hook / node -e 0: ${ratio(median['spool hook'], median['node -e 0'])} (goal <= 0.2×); spool hook / sh -c true: ${ratio(median['spool hook'], median['sh -c true'])}; direct Node hook / node -e 0: ${ratio(median['direct Node hook'], median['node -e 0'])}`,
		);

		for (const writers of [8, 32]) {
			// The same concurrency of bare shell starts: what this many processes cost on these cores now.
			const shells = [];
			await Promise.all(
				Array.from({length: writers}, async () => {
					for (let call = 0; call < CALLS_PER_WRITER; call += 1) shells.push(await runs['sh -c true']());
				}),
			);
			const concurrent = [];
			const spoolBefore = countSpool(home);
			await Promise.all(
				Array.from({length: writers}, async () => {
					for (let call = 0; call < CALLS_PER_WRITER; call += 1) concurrent.push(await runs['spool hook']());
				}),
			);
			console.log(
				`${writers} concurrent sh -c true x ${CALLS_PER_WRITER}: median ${ms(percentile(shells, 0.5))}, p99 ${ms(percentile(shells, 0.99))}`,
			);
			console.log(
				`${writers} concurrent spool-hook writers x ${CALLS_PER_WRITER} calls: median ${ms(percentile(concurrent, 0.5))}, p99 ${ms(percentile(concurrent, 0.99))}${writers === 8 ? ' (goal < 50 ms)' : ''}, max ${ms(Math.max(...concurrent))}; ${countSpool(home) - spoolBefore} of ${concurrent.length} spool files written`,
			);
		}
	} finally {
		rmSync(home, {recursive: true, force: true});
	}
	await claudeRuns();
}

function countSpool(home) {
	try {
		return readdirSync(join(home, 'spool')).filter(name => name.endsWith('.spool')).length;
	} catch {
		return 0;
	}
}

/** `claude -p` (offline, one Bash call: 7 hook calls) with our spool hooks installed, against none. */
async function claudeRuns() {
	if (!existsSync(join(REALCLIENTS, 'node_modules', '.bin', 'claude'))) {
		console.log(`claude -p with/without hooks: skipped, the real clients are not installed in ${REALCLIENTS}`);
		return;
	}
	const withHooks = mkdtempSync(join(tmpdir(), 'cr-bench-claude-hooks-'));
	const without = mkdtempSync(join(tmpdir(), 'cr-bench-claude-bare-'));
	const crHome = join(withHooks, 'cr');
	const base = {...process.env, REALCLIENTS, SCENARIO: 'bash'};
	delete base.CLAUDE_PID;
	try {
		const install = spawnSync(process.execPath, [BIN, 'hooks', 'install', '--claude'], {
			env: {
				...base,
				HOME: join(withHooks, 'home'),
				CLAUDE_CONFIG_DIR: join(withHooks, 'home', '.claude'),
				CONTROLROOM_HOME: crHome,
			},
			encoding: 'utf8',
		});
		if (install.status !== 0) throw new Error(`hooks install failed: ${install.stderr}`);
		const run = (dir, extra) =>
			timed(CLAUDE_OFFLINE, [dir, '-p', 'run echo hi', '--dangerously-skip-permissions'], '', {...base, ...extra});
		await run(without, {}); // warm the file cache, both ways
		await run(withHooks, {CONTROLROOM_HOME: crHome});
		const hooked = [];
		const bare = [];
		for (let index = 0; index < CLAUDE_RUNS; index += 1) {
			bare.push(await run(without, {}));
			hooked.push(await run(withHooks, {CONTROLROOM_HOME: crHome}));
		}
		const spooled = countSpool(crHome);
		const snapshot = spawnSync(process.execPath, [BIN, 'snapshot', '--json', '--all'], {
			env: {...base, CONTROLROOM_HOME: crHome},
			encoding: 'utf8',
		});
		const sessions = snapshot.status === 0 ? JSON.parse(snapshot.stdout).tasks.length : 'unknown';
		console.log(
			`claude -p (one Bash call), ${CLAUDE_RUNS} runs each, medians: without hooks ${ms(percentile(bare, 0.5))}, with the spool hooks ${ms(percentile(hooked, 0.5))}; ratio ${ratio(percentile(hooked, 0.5), percentile(bare, 0.5))} (goal <= 1.15×); ${spooled} hook calls spooled, ${sessions} sessions in the ledger after the fold`,
		);
	} finally {
		rmSync(withHooks, {recursive: true, force: true});
		rmSync(without, {recursive: true, force: true});
	}
}
