// Tree benchmark (docs/tree-and-cost.md): the paper-sized history with helpers, ~28,000 sessions
// and 12,000 helpers (SubagentStart/SubagentStop), read by the board of this build and of the build
// before the tree (BENCH_BEFORE, default the merge base with main), alternating, three runs each in
// one bench run. For each run: the first frame as a ratio to a bundled Ink app's first frame of
// the same size measured right before it, and CPU over 10 idle seconds. Prints figures and the
// after/before ratios of the medians; never fails on timing.
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {cpuTicks, inkFloor} from './board.bench.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SESSIONS = Number(process.env.TREE_BENCH_SESSIONS ?? 28_149);
const HELPERS = Number(process.env.TREE_BENCH_HELPERS ?? 12_000);
const RUNS = 3;
const TOOL_PAIRS = 8;
const socket = `cr-bench-tree-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], {encoding: 'utf8'});

/** The build before the change, from git, beside this checkout's node_modules. Returns its bin. */
function buildBefore(dir) {
	const rev =
		process.env.BENCH_BEFORE ?? execFileSync('git', ['-C', ROOT, 'merge-base', 'HEAD', 'main'], {encoding: 'utf8'}).trim();
	const tree = join(dir, 'before');
	execFileSync('sh', ['-c', `mkdir -p "${tree}" && git -C "${ROOT}" archive "${rev}" | tar -x -C "${tree}"`]);
	symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
	execFileSync('npm', ['run', '-s', 'build'], {cwd: tree, stdio: 'ignore'});
	console.log(`before: ${rev.slice(0, 12)}`);
	return join(tree, 'bin', 'controlroom');
}

/** The history: SESSIONS sessions, HELPERS of them with a helper that started and stopped; the last dozen still running. */
function buildLedger(dir, bin) {
	const file = join(dir, 'history.jsonl');
	const start = Date.now() - 42 * 86_400_000;
	const lines = [];
	const every = SESSIONS / HELPERS;
	let helpers = 0;
	for (let index = 0; index < SESSIONS; index++) {
		const recent = index >= SESSIONS - 60;
		let at = recent ? Date.now() - (SESSIONS - index) * 60_000 : start + index * 120_000;
		const session = `bench-${index.toString(36)}-0000-0000`;
		const base = {session_id: session, transcript_path: `/tmp/${session}.jsonl`, cwd: `/repo/${index % 40}`};
		const push = payload => {
			lines.push(JSON.stringify({at: new Date(at).toISOString(), source: 'claude', payload: {...base, ...payload}}));
			at += 1000;
		};
		const hasHelper = helpers < HELPERS && Math.floor((index + 1) / every) > helpers;
		if (hasHelper) helpers += 1;
		const helper = {agent_id: `a${index.toString(16).padStart(16, '0')}`, agent_type: 'general-purpose'};
		push({hook_event_name: 'SessionStart', source: 'startup'});
		push({hook_event_name: 'UserPromptSubmit', prompt: `task ${index}: fix the thing`});
		if (hasHelper) push({hook_event_name: 'SubagentStart', ...helper});
		for (let pair = 0; pair < TOOL_PAIRS; pair++) {
			const tool = {tool_name: 'Bash', tool_input: {command: `echo ${pair}`}, tool_use_id: `toolu_${index}_${pair}`};
			push({hook_event_name: 'PreToolUse', ...tool});
			push({hook_event_name: 'PostToolUse', ...tool, tool_response: {stdout: String(pair), stderr: '', interrupted: false}});
		}
		if (index < SESSIONS - 12) {
			if (hasHelper) push({hook_event_name: 'SubagentStop', ...helper, agent_transcript_path: `/tmp/${session}/a.jsonl`});
			push({hook_event_name: 'Stop', stop_hook_active: false});
			push({hook_event_name: 'SessionEnd', reason: 'other'});
		}
	}
	writeFileSync(file, `${lines.join('\n')}\n`);
	const ledger = join(dir, 'ledger.db');
	const started = performance.now();
	const result = spawnSync(process.execPath, [bin, 'ingest', '--ledger', ledger, file], {
		encoding: 'utf8',
		env: {...process.env, CONTROLROOM_HOME: dir},
	});
	if (result.status !== 0) throw new Error(`ingest failed: ${result.stderr}`);
	console.log(
		`ledger: ${lines.length} lines, ${SESSIONS} sessions and ${helpers} helpers, ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`,
	);
	return ledger;
}

async function timeUntil(session, text, timeoutMs = 60_000) {
	const started = performance.now();
	for (;;) {
		if (tmux('capture-pane', '-p', '-t', session).includes(text)) return performance.now() - started;
		if (performance.now() - started > timeoutMs)
			throw new Error(`pane never showed ${text}; it shows:\n${tmux('capture-pane', '-p', '-t', session)}`);
		await new Promise(resolve => setTimeout(resolve, 5));
	}
}

/** One board run: its first frame over the Ink floor's (measured just before), and idle CPU in %. */
async function boardRun(bin, ledger, floor, name) {
	tmux('new-session', '-d', '-s', `floor-${name}`, '-x', '160', '-y', '45', `exec ${process.execPath} ${floor}`);
	const floorFrame = await timeUntil(`floor-${name}`, 'INK FLOOR READY');
	tmux('kill-session', '-t', `floor-${name}`);
	const env = 'CONTROLROOM_AGENT_NAMES=cr-bench-no-such-agent';
	tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '45', `exec env ${env} ${process.execPath} ${bin} --ledger ${ledger}`);
	const firstFrame = await timeUntil(name, 'RECENTLY ENDED');
	const pid = Number(tmux('list-panes', '-t', name, '-F', '#{pane_pid}').trim());
	await new Promise(resolve => setTimeout(resolve, 3000));
	const before = cpuTicks(pid);
	const started = performance.now();
	await new Promise(resolve => setTimeout(resolve, 10_000));
	const cpu = ((cpuTicks(pid) - before) / 100 / ((performance.now() - started) / 1000)) * 100;
	tmux('kill-session', '-t', name);
	return {ratio: firstFrame / floorFrame, firstFrame, floorFrame, cpu, load: loadavg()[0]};
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function () {
	if (spawnSync('tmux', ['-V']).status !== 0) return console.log('tmux not installed: tree bench skipped');
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-tree-'));
	try {
		const before = buildBefore(dir);
		const after = join(ROOT, 'bin', 'controlroom');
		const ledger = buildLedger(dir, before);
		const floor = inkFloor(dir);
		tmux('new-session', '-d', '-s', 'keep', 'sleep 100000');
		const results = {before: [], after: []};
		for (let run = 0; run < RUNS; run += 1) {
			for (const [label, bin] of [
				['before', before],
				['after', after],
			]) {
				const figures = await boardRun(bin, ledger, floor, `${label}-${run}`);
				results[label].push(figures);
				console.log(
					`${label} run ${run + 1}: first frame ${figures.firstFrame.toFixed(0)} ms = ${figures.ratio.toFixed(2)}× the Ink floor (${figures.floorFrame.toFixed(0)} ms); idle CPU ${figures.cpu.toFixed(2)}% (load ${figures.load.toFixed(1)})`,
				);
			}
		}
		const ratio = key => median(results.after.map(r => r[key])) / median(results.before.map(r => r[key]));
		console.log(
			`medians: first frame ${median(results.before.map(r => r.ratio)).toFixed(2)}× → ${median(results.after.map(r => r.ratio)).toFixed(2)}× the floor (after/before ${ratio('ratio').toFixed(2)}); ` +
				`idle CPU ${median(results.before.map(r => r.cpu)).toFixed(2)}% → ${median(results.after.map(r => r.cpu)).toFixed(2)}% — target: no worse than 1.2×`,
		);
	} finally {
		spawnSync('tmux', ['-L', socket, 'kill-server']);
		rmSync(dir, {recursive: true, force: true});
	}
}
