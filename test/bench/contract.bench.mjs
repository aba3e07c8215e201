// What a handoff costs a user: `contract check` (model, rules, git and command probes) of the
// fixture and of a 1,000-line contract in the Markdown guide's shape (issue 43's promise: under
// 300 ms), and a take/pass-back cycle on a real ledger, against `node -e 0` and `controlroom --help`
// measured in the same run. Each figure is the wall clock and the CPU time of the whole command
// (Node's start, its modules, the check and its git children): on a shared 2-core machine the wall
// clock is mostly the time spent queued for a core, while the CPU time is what the command costs,
// and what its wall clock is on an idle machine (its only waits are its files and its git children).
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/contracts/valid-task.yaml', import.meta.url));
const CPU = fileURLToPath(new URL('./rss.mjs', import.meta.url));

/** Runs `node ARGS` (with the CPU preload), returns its wall clock and CPU time in ms and its stdout. */
function timedNode(args, cpuFile, expectStatus = 0) {
	const started = process.hrtime.bigint();
	const result = spawnSync(process.execPath, ['--import', CPU, ...args], {
		encoding: 'utf8',
		env: {...process.env, BENCH_CPU_FILE: cpuFile},
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.status !== expectStatus) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
	return {ms, cpuMs: Number(readFileSync(cpuFile, 'utf8')), stdout: result.stdout};
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Wall and CPU medians of `runs` runs. */
function medians(runs) {
	return {ms: median(runs.map(run => run.ms)), cpuMs: median(runs.map(run => run.cpuMs))};
}

const load = () => `load ${loadavg()[0].toFixed(2)}`;

/**
 * A Markdown task of exactly `lines` lines, as people write a long one: prose context, many
 * constraints and acceptance lines (one marked as a guess), scope paths, production fields.
 */
function longContract(lines, base) {
	const head = [
		'---',
		'kind: task',
		'title: Move every report to the new query layer',
		'authority: {may_read: [src/], may_write: [src/reports/, test/reports/], needs_reapproval: [package.json]}',
		'guardrails: {tripwires: [make check]}',
		'trace: {trace_id: 4bf92f3577b34da6a3ce929d0e0e4736, parent_span: 00f067aa0ba902b7}',
		'---',
		'',
		'## Goal',
		'',
		'Every report reads through the new query layer, and none reads the tables directly.',
		'',
		'## Context',
		'',
		'- repository: .',
		`- base_revision: ${base}`,
		'',
		'## In scope',
		'',
		'- src/reports/',
		'- test/reports/',
		'',
		'## Out of scope',
		'',
		'- src/billing/',
		'',
		'## Constraints',
		'',
	];
	const body = [];
	const left = lines - head.length - 4;
	const constraints = Math.floor(left / 2);
	for (let index = 0; index < constraints; index += 1)
		body.push(`- Report ${index + 1} keeps its column order and its totals row (guess: nobody relies on row order ${index}).`);
	body.push('', '## Acceptance', '');
	while (body.length < left + 3)
		body.push(
			`- \`npm test -- report-${body.length}\` passes, with a test comparing report ${body.length} with its golden file.`,
		);
	body.push('');
	return [...head, ...body].slice(0, lines).join('\n') + '\n';
}

export default async function bench() {
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-contract-'));
	try {
		const git = (...args) => execFileSync('git', ['-C', dir, ...args], {encoding: 'utf8'}).trim();
		git('init', '-q');
		writeFileSync(join(dir, 'package.json'), JSON.stringify({scripts: {test: 'node -e 0'}}));
		writeFileSync(join(dir, 'Makefile'), 'check:\n\ttrue\n');
		git('add', '.');
		git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'bench');
		const contract = join(dir, 'task.yaml');
		writeFileSync(contract, readFileSync(FIXTURE, 'utf8').replaceAll('BASE_REVISION', git('rev-parse', 'HEAD')));
		const ledger = join(dir, 'ledger.db');
		const cpuFile = join(dir, 'cpu');
		const timed = (args, expectStatus) => timedNode([BIN, ...args], cpuFile, expectStatus);
		const runs = 7;
		const loadBefore = load();
		const bare = medians(Array.from({length: runs}, () => timedNode(['-e', '0'], cpuFile)));
		const baseline = medians(Array.from({length: runs}, () => timed(['--help'])));
		const check = medians(Array.from({length: runs}, () => timed(['contract', 'check', contract])));
		const long = join(dir, 'long.md');
		writeFileSync(long, longContract(1000, git('rev-parse', 'HEAD')));
		const lineCount = readFileSync(long, 'utf8').split('\n').length - 1;
		const longCheck = medians(Array.from({length: runs}, () => timed(['contract', 'check', long])));
		const loadAfterChecks = load();
		// take writes to a ledger that is there (only run and ingest create one)
		timed(['run', '--ledger', ledger, '--', process.execPath, '-e', '0']);
		const takes = [];
		const passes = [];
		for (let index = 0; index < runs; index += 1) {
			const taken = timed(['take', contract, '--ledger', ledger]);
			takes.push(taken);
			const id = /as (claim-\S+)/.exec(taken.stdout)[1];
			passes.push(timed(['pass-back', id, '--reason', 'bench', '--ledger', ledger]));
		}
		const take = medians(takes);
		const pass = medians(passes);
		const figure = (name, m) =>
			`${name}: median ${m.ms.toFixed(0)} ms wall (${(m.ms / baseline.ms).toFixed(1)}x baseline), ${m.cpuMs.toFixed(0)} ms CPU (${(m.cpuMs / baseline.cpuMs).toFixed(1)}x baseline)`;
		console.log(
			`bare node (node -e 0): median ${bare.ms.toFixed(0)} ms wall, ${bare.cpuMs.toFixed(0)} ms CPU over ${runs} (${loadBefore})`,
		);
		console.log(`baseline (controlroom --help): median ${baseline.ms.toFixed(0)} ms wall, ${baseline.cpuMs.toFixed(0)} ms CPU`);
		console.log(figure('contract check', check));
		console.log(
			`${figure(`contract check of a ${lineCount}-line contract`, longCheck)}; ${(longCheck.cpuMs - bare.cpuMs).toFixed(0)} ms CPU beyond a bare Node start; the promise: under 300 ms, ${longCheck.cpuMs < 300 ? 'held' : 'NOT held'} by CPU time (${loadAfterChecks})`,
		);
		console.log(`${figure('take', take)}; ${figure('pass-back', pass)} (${load()})`);
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}
