import {spawnSync} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, readdirSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {dueHandoffs} from '../../src/handoff/due-handoffs.ts';
import {HANDOFF_FOLDER, writeHandoff} from '../../src/handoff/handoff-writer.ts';
import {scratchDir} from '../helpers/cli.ts';
import {event, scratchLedger} from '../helpers/ledger.ts';

// The writer's bookkeeping: once per session, decided by the ledger; history kept. What an agent's
// session records is checked against the real Claude Code in test/e2e/handoff-claude.e2e.test.ts.

function repository(): string {
	const dir = scratchDir('cr-handoff-');
	spawnSync('git', ['init', '-q', dir]);
	spawnSync('git', ['-C', dir, '-c', 'user.email=t@e', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start']);
	return dir;
}

function endedRun(cwd: string) {
	const ledger = scratchLedger();
	const now = Date.now();
	ledger.writer.append([
		event('w-1', 'task.registered', {title: 'make', cwd, agent: 'claude'}, now - 5000),
		event('w-1', 'task.started', {pid: 1}, now - 5000),
		{
			...event(
				'w-1',
				'agent.event',
				{event: 'PostToolUse', toolName: 'Bash', payload: {tool_input: {command: 'make'}, tool_response: {}}},
				now - 4000,
			),
			source: 'claude',
		},
		event('w-1', 'task.exited', {exitCode: 0}, now - 1000),
	]);
	return {ledger, task: ledger.reader.task('w-1')!, now};
}

const filesIn = (dir: string): string[] => readdirSync(join(dir, HANDOFF_FOLDER)).filter(name => name.endsWith('.md'));

describe('writeHandoff', () => {
	it('writes an automatic handoff once: a second writer that comes later is told it is there and leaves no file', () => {
		const dir = repository();
		const {ledger, task, now} = endedRun(dir);
		const first = writeHandoff(ledger, task, 'auto', now);
		const second = writeHandoff(ledger, task, 'auto', now + 1);
		expect(first.outcome).toBe('written');
		expect(second).toEqual({outcome: 'already', path: first.outcome === 'written' ? first.path : null});
		expect(filesIn(dir)).toHaveLength(1);
		expect(readdirSync(join(dir, HANDOFF_FOLDER)).filter(name => name.endsWith('.tmp'))).toEqual([]);
	});

	it('never overwrites: two on-demand handoffs in the same millisecond are two files', () => {
		const dir = repository();
		const {ledger, task, now} = endedRun(dir);
		expect(writeHandoff(ledger, task, 'command', now).outcome).toBe('written');
		expect(writeHandoff(ledger, task, 'command', now).outcome).toBe('written');
		expect(filesIn(dir).sort()).toEqual([expect.stringMatching(/-w-1\.md$/), expect.stringMatching(/-w-1_2\.md$/)]);
	});

	it('refuses a task still running, and one outside a repository, with the reason', () => {
		const ledger = scratchLedger();
		ledger.writer.append([event('w-2', 'task.registered', {cwd: '/'}), event('w-2', 'task.started', {pid: 1})]);
		expect(writeHandoff(ledger, ledger.reader.task('w-2')!, 'command')).toMatchObject({
			outcome: 'none',
			reason: expect.stringMatching(/still running/),
		});
		const outside = scratchDir('cr-no-repo-');
		const {ledger: other, task} = endedRun(outside);
		expect(writeHandoff(other, task, 'command')).toMatchObject({
			outcome: 'none',
			reason: expect.stringMatching(/not in a git repository/),
		});
	});
});

describe('dueHandoffs', () => {
	it('decides each ended session once, and a repository it cannot write is said as the reason, not thrown', () => {
		const dir = repository();
		mkdirSync(join(dir, '.controlroom'));
		chmodSync(join(dir, '.controlroom'), 0o500);
		const {ledger, now} = endedRun(dir);
		const due = dueHandoffs(ledger);
		if (process.getuid?.() !== 0) {
			expect(due.pass(now)).toEqual([]);
			const [skipped] = ledger.reader.latestEventsOf('w-1', ['handoff.skipped'], 1);
			expect(skipped?.data.reason).toMatch(/could not write the handoff/);
		}
		chmodSync(join(dir, '.controlroom'), 0o700);
		expect(dueHandoffs(ledger).pass(now).length).toBe(process.getuid?.() === 0 ? 1 : 0);
		expect(existsSync(join(dir, HANDOFF_FOLDER))).toBe(process.getuid?.() === 0);
	});
});
