// 100,000 helpers in one session (docs/tree-and-cost.md, "Scale"): one Claude session that started
// HELPERS_BENCH_COUNT helpers (SubagentStart), all but the last 50 stopped (SubagentStop), built
// through the public `controlroom ingest`. Measured: the board in tmux (its first frame, then CPU
// over 20 idle seconds as a share of one core, and its resident memory then and at its peak), and
// `controlroom snapshot` as text and as JSON (median of three wall times), beside `node -e 0` and
// `controlroom --help` in the same run; the load average with each. Prints figures and never fails
// on timing. Goals (issue figures): board idle under 25% of a core and under 300 MB, snapshot under 2 s.
// Each snapshot's CPU (user and system) is printed beside its wall time: on a loaded machine the wall
// time is mostly waiting. HELPERS_BENCH_BEFORE=/path/to/bin/controlroom times that build's snapshots
// too, alternating with this one's, on the same ledger; HELPERS_BENCH_LEDGER=/path/to/ledger.db
// starts from a copy of a ledger built before instead of ingesting one (the ingest is 2 to 3 minutes).
import {execFileSync, spawnSync} from 'node:child_process';
import {copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {cpuTicks} from './board.bench.mjs';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const HELPERS = Number(process.env.HELPERS_BENCH_COUNT ?? 100_000);
const STILL_RUNNING = 50;
const IDLE_SECONDS = 20;
const socket = `cr-bench-helpers-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], {encoding: 'utf8'});
const load = () => loadavg()[0].toFixed(1);

function buildLedger(dir) {
	const given = process.env.HELPERS_BENCH_LEDGER;
	if (given) {
		// A copy: the board's reconciler writes to the ledger it watches.
		const copy = join(dir, 'ledger.db');
		copyFileSync(given, copy);
		for (const suffix of ['-wal', '-shm'])
			if (existsSync(`${given}${suffix}`)) copyFileSync(`${given}${suffix}`, `${copy}${suffix}`);
		console.log(`ledger: a copy of ${given}`);
		return copy;
	}
	const session = 'bench-helpers-0000-0000-000000000001';
	const base = {session_id: session, transcript_path: `/tmp/${session}.jsonl`, cwd: '/repo/fan-out'};
	const lines = [];
	let at = Date.now() - 3_600_000;
	const push = payload => {
		lines.push(JSON.stringify({at: new Date(at).toISOString(), source: 'claude', payload: {...base, ...payload}}));
		at += 5;
	};
	push({hook_event_name: 'SessionStart', source: 'startup'});
	push({hook_event_name: 'UserPromptSubmit', prompt: 'fan out'});
	for (let index = 0; index < HELPERS; index += 1) {
		const helper = {agent_id: `a${index.toString(16).padStart(16, '0')}`, agent_type: 'general-purpose'};
		push({hook_event_name: 'SubagentStart', ...helper});
		if (index < HELPERS - STILL_RUNNING) push({hook_event_name: 'SubagentStop', ...helper});
	}
	const file = join(dir, 'history.jsonl');
	writeFileSync(file, `${lines.join('\n')}\n`);
	const ledger = join(dir, 'ledger.db');
	const started = performance.now();
	const result = spawnSync(process.execPath, [BIN, 'ingest', '--ledger', ledger, file], {
		encoding: 'utf8',
		env: {...process.env, CONTROLROOM_HOME: dir},
	});
	if (result.status !== 0) throw new Error(`ingest failed: ${result.stderr}`);
	console.log(
		`ledger: one session, ${HELPERS} helpers (${STILL_RUNNING} not stopped), ${lines.length} lines ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`,
	);
	return ledger;
}

function memory(pid) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = name => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
	return {rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024};
}

async function paneShows(text, timeoutMs = 300_000) {
	const started = performance.now();
	for (;;) {
		if (tmux('capture-pane', '-p', '-t', 'board').includes(text)) return performance.now() - started;
		if (performance.now() - started > timeoutMs) throw new Error(`the board never showed ${text}`);
		await new Promise(resolve => setTimeout(resolve, 20));
	}
}

async function board(ledger) {
	const env = 'CONTROLROOM_AGENT_NAMES=cr-bench-no-such-agent';
	tmux(
		'new-session',
		'-d',
		'-s',
		'board',
		'-x',
		'160',
		'-y',
		'45',
		`exec env ${env} ${process.execPath} ${BIN} --ledger ${ledger}`,
	);
	const firstFrame = await paneShows(`${HELPERS} helpers`);
	const pid = Number(tmux('list-panes', '-t', 'board', '-F', '#{pane_pid}').trim());
	// Its first reconciler pass and status summary (every 5 s) are part of the idle that follows.
	await new Promise(resolve => setTimeout(resolve, 6000));
	const before = cpuTicks(pid);
	const started = performance.now();
	await new Promise(resolve => setTimeout(resolve, IDLE_SECONDS * 1000));
	const cpu = ((cpuTicks(pid) - before) / 100 / ((performance.now() - started) / 1000)) * 100;
	const {rss, peak} = memory(pid);
	tmux('kill-session', '-t', 'board');
	console.log(
		`board: first frame ${(firstFrame / 1000).toFixed(1)} s; idle CPU ${cpu.toFixed(1)}% of a core over ${IDLE_SECONDS} s (goal < 25%); ` +
			`RSS ${rss.toFixed(0)} MB idle, ${peak.toFixed(0)} MB at its peak (goal < 300 MB); load ${load()}`,
	);
}

/** CPU seconds (user and system) of this process's waited-for children: a spawnSync's child is counted once it is reaped. */
function childCpu() {
	const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
	return (Number(fields[13]) + Number(fields[14])) / 100;
}

function timed(args) {
	const cpu = childCpu();
	const started = performance.now();
	const result = spawnSync(process.execPath, args, {stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30});
	if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
	return {wall: performance.now() - started, cpu: childCpu() - cpu};
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function snapshots(ledger) {
	const before = process.env.HELPERS_BENCH_BEFORE;
	const commands = {
		'node -e 0': ['-e', '0'],
		'controlroom --help': [BIN, '--help'],
		'snapshot (text)': [BIN, 'snapshot', '--ledger', ledger],
		...(before ? {'before: snapshot (text)': [before, 'snapshot', '--ledger', ledger]} : {}),
		'snapshot --json': [BIN, 'snapshot', '--json', '--ledger', ledger],
		...(before ? {'before: snapshot --json': [before, 'snapshot', '--json', '--ledger', ledger]} : {}),
	};
	const runs = Object.fromEntries(Object.keys(commands).map(name => [name, []]));
	for (let round = 0; round < 3; round += 1) for (const [name, args] of Object.entries(commands)) runs[name].push(timed(args));
	console.log(
		`snapshot, medians of 3 (goal < 2 s): ${Object.entries(runs)
			.map(
				([name, values]) =>
					`${name} ${(median(values.map(run => run.wall)) / 1000).toFixed(2)} s (CPU ${median(values.map(run => run.cpu)).toFixed(2)} s)`,
			)
			.join('; ')}; load ${load()}`,
	);
}

export default async function () {
	if (spawnSync('tmux', ['-V']).status !== 0) return console.log('tmux not installed: helpers bench skipped');
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-helpers-'));
	try {
		const ledger = buildLedger(dir);
		tmux('new-session', '-d', '-s', 'keep', 'sleep 100000');
		await board(ledger);
		snapshots(ledger);
	} finally {
		spawnSync('tmux', ['-L', socket, 'kill-server']);
		rmSync(dir, {recursive: true, force: true});
	}
}
