// The paper-sized ledger (about 28,000 tasks and 540,000 events over six weeks) built through the
// public `ingest` command: ingest lines/s and events/s against the floor measured in the same run (a
// minimal parse-and-insert loop, ingest-floor.mjs), peak RSS, re-ingest, `snapshot --json` time;
// then the ledger grown to 10× and a fresh history of the same size appended onto it, whose rate
// is compared with the first ingest's (BENCH_TENX=0 skips that part).
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import Database from 'better-sqlite3';
import {writeHistory} from './history.mjs';

const BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
const RSS = fileURLToPath(new URL('./rss.mjs', import.meta.url));

function timed(args, dir) {
	const rssFile = join(dir, 'rss');
	const started = process.hrtime.bigint();
	const result = spawnSync(process.execPath, ['--import', RSS, BIN, ...args], {
		encoding: 'utf8',
		env: {...process.env, BENCH_RSS_FILE: rssFile, BENCH_CPU_FILE: join(dir, 'cpu')},
		maxBuffer: 1 << 30,
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.status !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
	return {
		ms,
		cpuMs: Number(readFileSync(join(dir, 'cpu'), 'utf8')),
		rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024,
		stdout: result.stdout,
	};
}

const FLOOR = fileURLToPath(new URL('./ingest-floor.mjs', import.meta.url));

/** The floor: the minimal loop, as its own process, on a fresh ledger with the same schema. */
function floor(history, dir, mode = []) {
	const ledger = join(dir, 'floor.db');
	const empty = join(dir, 'empty.jsonl');
	writeFileSync(empty, '');
	timed(['ingest', empty, '--ledger', ledger], dir);
	const started = process.hrtime.bigint();
	const result = spawnSync(process.execPath, [FLOOR, history, ledger, ...mode], {encoding: 'utf8'});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.status !== 0) throw new Error(`floor failed: ${result.stderr}`);
	rmSync(ledger, {force: true});
	return {ms, ...JSON.parse(result.stdout)};
}

/** The 1-minute load average, printed beside each figure: on a shared machine it explains most of the spread. */
const load = () => `load ${loadavg()[0].toFixed(2)}`;

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function countEvents(file) {
	const check = new Database(file, {readonly: true});
	try {
		return check.prepare('SELECT COUNT(*) FROM events').pluck().get();
	} finally {
		check.close();
	}
}

export default async function bench() {
	const sessions = Number(process.env.BENCH_SESSIONS ?? 24_500);
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-'));
	const history = join(dir, 'history.jsonl');
	const db = join(dir, 'ledger.db');
	try {
		const lines = await writeHistory(history, {sessions});
		const baseline = timed(['--help'], dir);
		const ingestLoad = load();
		const ingest = timed(['ingest', history, '--ledger', db, '--json'], dir);
		const stats = JSON.parse(ingest.stdout);
		const check = new Database(db, {readonly: true});
		const tasks = check.prepare('SELECT COUNT(*) FROM tasks').pluck().get();
		const events = check.prepare('SELECT COUNT(*) FROM events').pluck().get();
		check.close();
		const snapshots = [0, 1, 2].map(() => timed(['snapshot', '--json', '--ledger', db], dir));
		const again = timed(['ingest', history, '--ledger', db, '--json'], dir);
		console.log(
			`history: ${lines} payload lines, ${(statSync(history).size / 1e6).toFixed(0)} MB; ledger: ${tasks} tasks, ${events} events, ${(statSync(db).size / 1e6).toFixed(0)} MB`,
		);
		console.log(`baseline (controlroom --help): ${baseline.ms.toFixed(0)} ms`);
		console.log(
			`ingest: ${(ingest.ms / 1000).toFixed(1)} s, ${Math.round(stats.appended / (ingest.ms / 1000))} events/s, peak RSS ${ingest.rssMb.toFixed(0)} MB (goal < 200 MB) (${ingestLoad} before, ${load()} after)`,
		);
		const base = floor(history, dir);
		const floorLoad = load();
		const hashed = floor(history, dir, ['--hash']);
		const linesPerSecond = lines / (ingest.ms / 1000);
		const floorPerSecond = base.lines / (base.ms / 1000);
		const hashedPerSecond = hashed.lines / (hashed.ms / 1000);
		console.log(
			`ingest: ${Math.round(linesPerSecond)} lines/s (goal >= 50,000); floor (minimal parse-and-insert loop, same run): ${Math.round(floorPerSecond)} lines/s; floor/ingest ${(floorPerSecond / linesPerSecond).toFixed(2)}× (goal <= 1.5×) (${floorLoad} after the floor)`,
		);
		console.log(
			`chain: ingest/floor ${(linesPerSecond / floorPerSecond).toFixed(2)}× (goal >= 0.65×); floor that also chains each row ${Math.round(hashedPerSecond)} lines/s, ingest/that ${(linesPerSecond / hashedPerSecond).toFixed(2)}× (goal >= 0.7×) (${load()})`,
		);
		// The same ratios by CPU time (user and system of each process), which load shifts far less than the wall clock.
		console.log(
			`chain, by CPU time: ingest ${(ingest.cpuMs / 1000).toFixed(1)} s, floor ${(base.cpuMs / 1000).toFixed(1)} s, chaining floor ${(hashed.cpuMs / 1000).toFixed(1)} s; ingest/floor ${(base.cpuMs / ingest.cpuMs).toFixed(2)}× (goal >= 0.65×), ingest/chaining floor ${(hashed.cpuMs / ingest.cpuMs).toFixed(2)}× (goal >= 0.7×)`,
		);
		const verify = timed(['verify', '--ledger', db], dir);
		console.log(
			`verify: ${events} events in ${(verify.ms / 1000).toFixed(1)} s (goal < 10 s), ${(verify.cpuMs / 1000).toFixed(1)} s of CPU on its two threads, peak RSS ${verify.rssMb.toFixed(0)} MB (${load()})`,
		);
		console.log(`re-ingest (adds ${JSON.parse(again.stdout).appended}): ${(again.ms / 1000).toFixed(1)} s`);
		console.log(
			`snapshot --json: median ${median(snapshots.map(s => s.ms)).toFixed(0)} ms (${(median(snapshots.map(s => s.ms)) / baseline.ms).toFixed(1)}x baseline), peak RSS ${Math.max(...snapshots.map(s => s.rssMb)).toFixed(0)} MB, ${JSON.parse(snapshots[0].stdout).tasks.length} tasks listed`,
		);
		if (process.env.BENCH_TENX !== '0') {
			// Grow the ledger to 10× with nine more histories of the same size (other sessions), then
			// append a tenth: the same amount of history, onto a ledger ten times the first.
			for (let seed = 43; seed <= 51; seed += 1) {
				await writeHistory(history, {sessions, seed});
				timed(['ingest', history, '--ledger', db, '--json'], dir);
			}
			const tenfoldEvents = countEvents(db);
			const appendedLines = await writeHistory(history, {sessions, seed: 52});
			const append = timed(['ingest', history, '--ledger', db, '--json'], dir);
			const appendPerSecond = appendedLines / (append.ms / 1000);
			console.log(
				`append onto the 10× ledger (${tenfoldEvents} events, ${(statSync(db).size / 1e9).toFixed(1)} GB): ${appendedLines} lines in ${(append.ms / 1000).toFixed(1)} s, ${Math.round(appendPerSecond)} lines/s, peak RSS ${append.rssMb.toFixed(0)} MB; ${(appendPerSecond / linesPerSecond).toFixed(2)}× the first ingest's rate (goal >= 0.5×) (${load()})`,
			);
		}
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}
