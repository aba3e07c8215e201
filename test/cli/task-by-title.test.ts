import {afterEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli} from '../helpers/cli.ts';
import {event} from '../helpers/ledger.ts';
import {expectOneLine} from '../helpers/one-line.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';
import {agent, killQuietly, ledgerOf, sandbox, startCli} from '../producers/helpers.ts';

const open: Ledger[] = [];
const groups: number[] = [];
afterEach(() => {
	for (const ledger of open.splice(0)) ledger.close();
	for (const pgid of groups.splice(0)) killQuietly(-pgid);
});

/** Tasks beside the running one: an old run of the same title, and titles that share its start. */
function addNeighbours(ledger: Ledger): void {
	const now = Date.now();
	ledger.writer.append([
		event('w-old0001', EventType.registered, {title: 'fix export', source: 'wrapper'}, now - 600_000),
		event('w-old0001', EventType.exited, {exitCode: 0}, now - 590_000),
		event('w-v2000001', EventType.registered, {title: 'Fix export v2', source: 'wrapper'}, now - 500_000),
		event('w-v2000001', EventType.exited, {exitCode: 0}, now - 490_000),
		event('w-imp00001', EventType.registered, {title: 'fix import', source: 'wrapper'}, now - 400_000),
		event('w-imp00001', EventType.exited, {exitCode: 1}, now - 390_000),
	]);
}

describe('a task named by its title', () => {
	it("stop 'fix export' stops the running task of that title, not last week's run of it", async () => {
		// Given a running wrapped task titled "fix export", an ended one of the same title, and neighbours
		const box = sandbox();
		const run = startCli(
			['run', '--ledger', box.ledgerFile, '--title', 'fix export', '--', process.execPath, agent('sleeper.mjs')],
			box.env,
		);
		const ledger = await ledgerOf(box.ledgerFile);
		open.push(ledger);
		const task = await waitFor(() => ledger.reader.tasksWithStatus(['running'])[0], {
			what: 'running task',
			on: [onLedgerChange(box.ledgerFile)],
		});
		groups.push(task.pgid!);
		addNeighbours(ledger);
		// When it is stopped by its title
		const result = runCli(['stop', 'fix export', '--ledger', box.ledgerFile], {env: box.env});
		// Then that task, and only it, is stopped
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toMatch(new RegExp(`^stopped ${task.id}: `));
		expect((await run.done).code).toBe(143);
		expect(ledger.reader.task(task.id)).toMatchObject({status: 'stopped', title: 'fix export'});
		expect(ledger.reader.task('w-old0001')?.status).toBe('done');
	});

	it('an ambiguous prefix is one line naming every candidate with its title, exit 64, for every command', () => {
		const box = sandbox();
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		addNeighbours(ledger);
		for (const command of ['stop', 'timeline', 'explain', 'jump']) {
			const result = runCli([command, 'fix', '--ledger', box.ledgerFile], {env: box.env});
			expectOneLine(
				result,
				64,
				/task 'fix' is ambiguous: it matches w-\w+ "[^"]+", w-\w+ "[^"]+", w-\w+ "[^"]+"; give more of the id or the title/,
			);
			for (const id of ['w-old0001', 'w-v2000001', 'w-imp00001']) expect(result.stderr, command).toContain(id);
		}
		expect(ledger.reader.task('w-imp00001')?.status).toBe('failed');
	});

	it('a whole title wins over the titles it begins; case and spaces around it do not count; ids still come first', () => {
		const box = sandbox();
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		addNeighbours(ledger);
		const timelineOf = (ref: string) => runCli(['timeline', ref, '--ledger', box.ledgerFile], {env: box.env});
		// "fix export" is whole for w-old0001 and only the start of "Fix export v2"
		expect(timelineOf('fix export').stdout).toContain('w-old0001');
		expect(timelineOf('  FIX EXPORT V').stdout).toContain('w-v2000001');
		expect(timelineOf('fix im').stdout).toContain('w-imp00001');
		expect(runCli(['explain', 'Fix Import', '--ledger', box.ledgerFile], {env: box.env}).stdout).toContain('w-imp00001');
		// An id prefix is still read as an id first
		expect(timelineOf('w-v2').stdout).toContain('w-v2000001');
		// A title no task has is "no task", exit 1, as an unknown id is
		expectOneLine(timelineOf('fix the world'), 1, /timeline: no task 'fix the world'/);
		// LIKE's own characters in a title are plain text
		expectOneLine(timelineOf('fix%'), 1, /no task 'fix%'/);
		expectOneLine(timelineOf('fix_export'), 1, /no task 'fix_export'/);
	});
});
