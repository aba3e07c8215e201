// The paper-sized ledger (about 28,000 tasks and 540,000 events over six weeks) built through the
// public `ingest` command: ingest events/s, `snapshot --json` time, and peak RSS of each.
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
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
		env: {...process.env, BENCH_RSS_FILE: rssFile},
		maxBuffer: 1 << 30,
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.status !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
	return {ms, rssMb: Number(readFileSync(rssFile, 'utf8')) / 1024, stdout: result.stdout};
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function bench() {
	const sessions = Number(process.env.BENCH_SESSIONS ?? 24_500);
	const dir = mkdtempSync(join(tmpdir(), 'cr-bench-'));
	const history = join(dir, 'history.jsonl');
	const db = join(dir, 'ledger.db');
	try {
		const lines = await writeHistory(history, {sessions});
		const baseline = timed(['--help'], dir);
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
			`ingest: ${(ingest.ms / 1000).toFixed(1)} s, ${Math.round(stats.appended / (ingest.ms / 1000))} events/s, peak RSS ${ingest.rssMb.toFixed(0)} MB`,
		);
		console.log(`re-ingest (adds ${JSON.parse(again.stdout).appended}): ${(again.ms / 1000).toFixed(1)} s`);
		console.log(
			`snapshot --json: median ${median(snapshots.map(s => s.ms)).toFixed(0)} ms (${(median(snapshots.map(s => s.ms)) / baseline.ms).toFixed(1)}x baseline), peak RSS ${Math.max(...snapshots.map(s => s.rssMb)).toFixed(0)} MB, ${JSON.parse(snapshots[0].stdout).tasks.length} tasks listed`,
		);
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}
