// `controlroom status` for tmux's status line (docs/tmux.md, "Status line"): the installed entry
// (bin/controlroom.sh) answering from its summary file, on the paper-sized ledger of
// board.bench.mjs, against `sh -c true` and `node -e 0` in the same run (goal: median at most
// 0.4× node -e 0); and what the sh entry adds to every other command: `--help` and a hook call
// through it against the Node entry called as it was installed before (goal: at most 5 ms more,
// median). Runs alternate, so drift in the machine's load hits all alike. Never fails on timing.
import {spawnSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {buildLedger} from './board.bench.mjs';
import {timed} from './timed.mjs';

const NODE_ENTRY = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const SH_FILE = fileURLToPath(new URL('../../bin/controlroom.sh', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const PAYLOAD = readFileSync(new URL('../fixtures/claude/PreToolUse.json', import.meta.url));
const ROUNDS = Number(process.env.BENCH_STATUS_ROUNDS ?? 40);

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = value => `${value.toFixed(1)} ms`;

export default async function bench() {
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-status-'));
	try {
		const ledger = buildLedger(dir);
		// Called as npm installs it: node_modules/.bin/controlroom -> ../controlroom/bin/controlroom.sh,
		// the package itself linked into node_modules (the entry finds it with builtins).
		mkdirSync(join(dir, 'node_modules', '.bin'), {recursive: true});
		symlinkSync(PACKAGE, join(dir, 'node_modules', 'controlroom'));
		const SH_ENTRY = join(dir, 'node_modules', '.bin', 'controlroom');
		symlinkSync('../controlroom/bin/controlroom.sh', SH_ENTRY);
		// A link of no layout npm makes (absolute, elsewhere): the entry follows it with readlink.
		mkdirSync(join(dir, 'bin'));
		const OTHER_LINK = join(dir, 'bin', 'controlroom');
		symlinkSync(SH_FILE, OTHER_LINK);
		const env = {...process.env, CONTROLROOM_HOME: dir, CLAUDE_PID: '4242'};
		// The first status goes through Node (no summary yet) and writes the summary the rest read.
		const first = spawnSync(SH_ENTRY, ['status'], {env, encoding: 'utf8'});
		console.log(`first status (through Node, writes the summary): ${first.stdout.trim()}`);
		const fast = spawnSync(SH_ENTRY, ['status', '--ledger', ledger], {env, encoding: 'utf8'});
		console.log(`status from the summary: ${fast.stdout.trim()}`);
		const runs = {
			'sh -c true': () => timed('/bin/sh', ['-c', 'true'], '', env),
			'node -e 0': () => timed(process.execPath, ['-e', '0'], '', env),
			status: () => timed(SH_ENTRY, ['status'], '', env),
			'status --json': () => timed(SH_ENTRY, ['status', '--json'], '', env),
			'--help, Node entry': () => timed(NODE_ENTRY, ['--help'], '', env),
			'--help, sh entry': () => timed(SH_ENTRY, ['--help'], '', env),
			'--help, sh entry, other link': () => timed(OTHER_LINK, ['--help'], '', env),
			'hook, Node entry': () => timed(NODE_ENTRY, ['hook'], PAYLOAD, env),
			'hook, sh entry': () => timed(SH_ENTRY, ['hook'], PAYLOAD, env),
		};
		const times = Object.fromEntries(Object.keys(runs).map(name => [name, []]));
		for (const run of Object.values(runs)) await run();
		for (let round = 0; round < ROUNDS; round += 1) for (const [name, run] of Object.entries(runs)) times[name].push(await run());
		const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
		console.log(
			`${ROUNDS} rounds, medians: ${Object.entries(m)
				.map(([name, value]) => `${name} ${ms(value)}`)
				.join('; ')}`,
		);
		console.log(
			`status / node -e 0: ${(m.status / m['node -e 0']).toFixed(2)}× (goal <= 0.4×); status --json / node -e 0: ${(m['status --json'] / m['node -e 0']).toFixed(2)}×; status / sh -c true: ${(m.status / m['sh -c true']).toFixed(2)}×`,
		);
		console.log(
			`the sh entry adds: --help ${ms(m['--help, sh entry'] - m['--help, Node entry'])}, hook ${ms(m['hook, sh entry'] - m['hook, Node entry'])} (goal <= 5 ms); --help through a link it follows with readlink ${ms(m['--help, sh entry, other link'] - m['--help, Node entry'])}`,
		);
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}
