import {closeSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync, writeSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli} from '../helpers/cli.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, onOutput, waitFor} from '../helpers/wait-for.ts';
import {killQuietly, sandbox, startCli, type Started} from '../producers/helpers.ts';

const SESSION = 'moved';
const tmux = new Tmux();
const runs: Started[] = [];
afterAll(() => {
	tmux.kill();
	for (const run of runs) killQuietly(run.child.pid);
});

/** What a ledger file holds, read through a connection opened now (and closed at once). */
function contents(file: string): {events: number; progress: number[]; status: string | undefined; integrity: string[]} {
	const ledger = openLedger(file, {isReadonly: true});
	try {
		const task = ledger.reader.tasksForView(null).find(row => row.title === 'mover');
		const progress = task
			? ledger.reader.eventsOf(task.id).flatMap(event => (event.type === EventType.progressed ? [event.data.done ?? -1] : []))
			: [];
		return {events: ledger.reader.eventCount(), progress, status: task?.status, integrity: ledger.quickCheck()};
	} finally {
		ledger.close();
	}
}

const range = (from: number, to: number): number[] => Array.from({length: to - from + 1}, (_, index) => from + index);

describe.runIf(Tmux.isAvailable())('the ledger moved under a running board and wrapper', () => {
	it('loses nothing: events before + during = events found across the two files, and the board says moved', async () => {
		// Given a wrapped shell that prints a progress line for each number the test writes to its FIFO
		const box = sandbox();
		const ledgerFile = box.ledgerFile;
		const movedFile = join(box.home, 'moved.db');
		openLedger(ledgerFile).close();
		const fifo = join(box.dir, 'numbers');
		const script = `mkfifo ${fifo} && echo ready; while read n; do echo "PROGRESS $n/100"; done < ${fifo}`;
		const run = startCli(
			['run', '--ledger', ledgerFile, '--title', 'mover', '--heartbeat', '3600', '--', 'sh', '-c', script],
			box.env,
			box.dir,
		);
		runs.push(run);
		await waitFor(() => run.stdout().includes('ready'), {what: 'the wrapped shell', on: [onOutput(run.child.stdout)]});
		// And the board on the same ledger, its own reconciler pass pinned off
		tmux.start(SESSION, 200, 45, {CONTROLROOM_HOME: box.home, PATH: process.env['PATH'] ?? ''});
		tmux.type(SESSION, `node ${BIN} --ledger ${ledgerFile} --reconcile 3600`);
		tmux.send(SESSION, 'Enter');
		await tmux.waitFor(SESSION, pane => pane.includes('mover') && pane.includes('RUNNING (1)'), 15_000);
		const numbers = openSync(fifo, 'w');
		const send = (values: readonly number[]): void => void writeSync(numbers, values.map(value => `${value}\n`).join(''));
		// And ten progress events committed before the move
		send(range(1, 10));
		await waitFor(() => contents(ledgerFile).progress.length === 10, {
			what: 'ten progress events in the ledger',
			on: [onLedgerChange(ledgerFile)],
		});
		const before = contents(ledgerFile).events;
		const storedBefore = withRawDb(ledgerFile, db => db.prepare('SELECT seq, type, data FROM events ORDER BY seq').all());

		// When the ledger is moved (as `mv ledger.db moved.db` does) while the wrapper goes on writing
		const movedAt = Date.now();
		renameSync(ledgerFile, movedFile);
		send(range(11, 20));

		// Then the wrapper says where its events go, and the board says moved, not deleted
		await waitFor(() => run.stderr().includes(`moved to ${movedFile}`), {
			what: 'the wrapper to notice the move',
			on: [onOutput(run.child.stderr)],
		});
		const wrapperLine =
			run
				.stderr()
				.split('\n')
				.find(line => line.includes('moved to')) ?? '';
		expect(wrapperLine).toContain(`this task's events, earlier and later, are in ${movedFile}`);
		const board = await tmux.waitFor(SESSION, pane => pane.includes(`was moved to ${movedFile}`), 10_000);
		process.stdout.write(`moved ledger: board said moved after ${board.at - movedAt} ms\n`);
		expect(board.pane).not.toMatch(/was deleted/);
		// And a fresh reader of the moved file finds every event, those in its WAL too
		await waitFor(() => contents(movedFile).progress.length === 20, {
			what: 'the moved file to hold all twenty progress events',
			on: [onLedgerChange(movedFile)],
		});

		// When a new ledger is made at the old path (ingest creates one) and the run goes on and ends
		const history = join(box.dir, 'history.jsonl');
		const sessions = range(1, 5).map(index => `44444444-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`);
		writeFileSync(
			history,
			sessions
				.map(id => JSON.stringify({at: new Date().toISOString(), source: 'claude', payload: claudePayload('Stop', id)}))
				.join('\n'),
		);
		const ingest = runCli(['ingest', history, '--ledger', ledgerFile], {env: box.env});
		expect(ingest.status, ingest.stderr).toBe(0);
		send(range(21, 25));
		closeSync(numbers);
		expect((await run.done).code).toBe(0);

		// Then the moved file holds everything before the move, and the whole run; the new file the ingest
		const moved = contents(movedFile);
		const fresh = contents(ledgerFile);
		const ingested = withRawDb(ledgerFile, db => (db.prepare('SELECT COUNT(*) AS n FROM events').get() as {n: number}).n);
		const movedOnly = moved.events - before;
		process.stdout.write(
			`moved ledger: went in ${before} events before the move, 15 progress lines during it, ${sessions.length} ingested lines; ` +
				`found ${moved.events} in ${movedFile} (${before} from before, ${movedOnly} during: progress ${moved.progress.length}/25, ${moved.status}), ` +
				`${fresh.events} in the new ${ledgerFile} (${ingested} events of ${sessions.length} sessions); integrity ${moved.integrity.length === 0 ? 'ok' : moved.integrity.join('; ')}\n`,
		);
		expect(
			withRawDb(movedFile, db => db.prepare('SELECT seq, type, data FROM events WHERE seq <= ? ORDER BY seq').all(before)),
		).toEqual(storedBefore);
		expect(moved.progress).toEqual(range(1, 25));
		expect(moved.status).toBe('done');
		expect(moved.integrity).toEqual([]);
		expect(moved.events).toBeGreaterThanOrEqual(before + 15);
		expect(fresh.integrity).toEqual([]);
		expect(fresh.status).toBeUndefined();
		expect(fresh.events).toBe(ingested);
		expect(fresh.events).toBeGreaterThan(0);
		// And the board reads the new ledger at its path once there is one, still saying where the old one went
		const after = await tmux.waitFor(SESSION, pane => pane.includes('now reading the new ledger at'), 10_000);
		expect(after.pane).toContain(`was moved to ${movedFile}`);
		tmux.send(SESSION, 'q');
	}, 90_000);
});

describe('a WAL its ledger left behind', () => {
	it('is kept aside when a new ledger is made under its name, never joined by it nor removed', () => {
		// Given a WAL holding commits under a name whose database is gone (moved away after a crash left its WAL)
		const box = sandbox();
		const writer = openLedger(box.ledgerFile);
		writer.writer.append([{taskId: 't-1', type: EventType.registered, at: Date.now(), source: 'cli', data: {title: 'left'}}]);
		const wal = readFileSync(`${box.ledgerFile}-wal`);
		writer.close();
		renameSync(box.ledgerFile, join(box.home, 'elsewhere.db'));
		writeFileSync(`${box.ledgerFile}-wal`, wal);
		// When a new ledger is made at the path
		const fresh = openLedger(box.ledgerFile);
		const events = fresh.reader.eventCount();
		fresh.close();
		// Then the new ledger did not join the old WAL, and the WAL is kept beside it, whole
		const kept = readdirSync(box.home).filter(name => name.startsWith('ledger.db-wal.orphaned-'));
		process.stdout.write(`orphaned WAL: ${wal.length} bytes kept as ${kept.join(', ')}; the new ledger holds ${events} events\n`);
		expect(events).toBe(0);
		expect(kept).toHaveLength(1);
		expect(readFileSync(join(box.home, kept[0] ?? ''))).toEqual(wal);
	});
});
