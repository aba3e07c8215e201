import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {withRawDb} from '../helpers/raw-db.ts';
import {claudePayload} from '../helpers/payloads.ts';

function ledgerWith(build: (append: ReturnType<typeof openLedger>['writer']['append']) => void): string {
	const db = join(scratchDir(), 'ledger.db');
	const ledger = openLedger(db);
	try {
		build(events => ledger.writer.append(events));
	} finally {
		ledger.close();
	}
	return db;
}

const now = Date.now();

describe('snapshot', () => {
	it('shows unreported tokens, PID and exit code as null in JSON and unknown in text, never 0', () => {
		// Given a session whose agent reported no tokens, PID or exit code
		const dir = scratchDir();
		const file = join(dir, 'session.jsonl');
		const session = '33333333-aaaa-4bbb-8ccc-000000000001';
		writeFileSync(
			file,
			[claudePayload('SessionStart', session), claudePayload('SessionEnd', session)].map(p => JSON.stringify(p)).join('\n'),
		);
		const db = join(dir, 'ledger.db');
		expect(runCli(['ingest', file, '--ledger', db]).status).toBe(0);
		// When the snapshot is printed both ways
		const json = JSON.parse(runCli(['snapshot', '--json', '--ledger', db]).stdout);
		const text = runCli(['snapshot', '--ledger', db]).stdout;
		// Then JSON says null and text says unknown
		expect(json.tasks).toHaveLength(1);
		expect(json.tasks[0]).toMatchObject({
			status: 'done',
			pid: null,
			exitCode: null,
			tokens: {input: null, output: null, total: null},
			progress: null,
		});
		const lines = text.split('\n');
		const line = lines.find(row => row.includes(json.tasks[0].id)) ?? '';
		const headings = lines.find(row => row.includes('TOKENS')) ?? '';
		// Each value starts under its heading (the text's columns are measured as the board's are).
		const under = (heading: string): string => line.slice(headings.indexOf(heading));
		expect(under('TOKENS')).toMatch(/^unknown /);
		expect(under('PID')).toBe('unknown');
		expect(under('PROGRESS')).toMatch(/^not reported /);
		const timeline = runCli(['timeline', json.tasks[0].id, '--ledger', db]).stdout;
		expect(timeline).toContain('pid unknown');
		expect(timeline).toContain('exit unknown');
	});

	it('prints the v1 shape with counts over the whole ledger and tasks within the window', () => {
		const db = ledgerWith(append => {
			append([
				{taskId: 't-old', type: EventType.registered, at: now - 3 * 86_400_000, source: 'wrapper', data: {title: 'old'}},
				{taskId: 't-old', type: EventType.exited, at: now - 3 * 86_400_000, source: 'wrapper', data: {exitCode: 0}},
				{
					taskId: 't-live',
					type: EventType.registered,
					at: now - 1000,
					source: 'wrapper',
					data: {title: 'live', steps: 4, budget: 100},
				},
				{taskId: 't-live', type: EventType.started, at: now - 1000, source: 'wrapper', data: {pid: 4242, pgid: 4242}},
				{taskId: 't-live', type: EventType.progressed, at: now - 500, source: 'wrapper', data: {done: 2, total: 4}},
				{taskId: 't-live', type: EventType.tokensReported, at: now - 500, source: 'wrapper', data: {input: 1200, output: 300}},
				{taskId: 't-quiet', type: EventType.started, at: now - 700_000, source: 'wrapper', data: {pid: 77}},
			]);
		});
		const json = JSON.parse(runCli(['snapshot', '--json', '--ledger', db]).stdout);
		expect(Object.keys(json)).toEqual([
			'version',
			'generatedAt',
			'counts',
			'tasks',
			'queue',
			'verdicts',
			'effects',
			'disagreements',
			'decisions',
			'contracts',
			'seenBy',
			'unseen',
			'stats',
		]);
		expect(json.version).toBe(1);
		expect(json.counts).toEqual({
			registered: 0,
			running: 2,
			done: 1,
			failed: 0,
			stopped: 0,
			lost: 0,
			untracked: 0,
			vanished: 0,
			stalled: 1,
		});
		expect(json.tasks.map((task: {id: string}) => task.id).sort()).toEqual(['t-live', 't-quiet']);
		const live = json.tasks.find((task: {id: string}) => task.id === 't-live');
		expect(live).toMatchObject({
			status: 'running',
			health: 'active',
			pid: 4242,
			progress: {done: 2, total: 4},
			tokens: {input: 1200, output: 300, total: 1500, isPartial: false},
			budget: 100,
			exitCode: null,
			lastSeenAt: new Date(now - 500).toISOString(),
		});
		expect(json.tasks.find((task: {id: string}) => task.id === 't-quiet').health).toBe('stalled');
		// Still running: nothing to see yet (docs/tmux.md, "Seen and unseen").
		expect(live.seen).toBeNull();
		const all = JSON.parse(runCli(['snapshot', '--json', '--all', '--as', 'ana', '--ledger', db]).stdout);
		expect(all.tasks).toHaveLength(3);
		// The old done task, never looked at, is unseen for whoever asks.
		expect(all).toMatchObject({seenBy: 'ana', unseen: 1});
		const sinceFourDays = JSON.parse(runCli(['snapshot', '--json', '--since', '4d', '--ledger', db]).stdout);
		expect(sinceFourDays.tasks).toHaveLength(3);
	});

	it('exits 1 with --fail-on when that lane is not empty, 0 when it is', () => {
		const db = ledgerWith(append => {
			append([
				{taskId: 't-1', type: EventType.registered, at: now - 2000, source: 'wrapper', data: {title: 'broken'}},
				{taskId: 't-1', type: EventType.exited, at: now - 1000, source: 'wrapper', data: {exitCode: 3}},
			]);
		});
		expect(runCli(['snapshot', '--fail-on', 'failed', '--ledger', db]).status).toBe(1);
		expect(runCli(['snapshot', '--fail-on', 'needs-you', '--ledger', db]).status).toBe(1);
		expect(runCli(['snapshot', '--fail-on', 'lost', '--ledger', db]).status).toBe(0);
		expect(runCli(['snapshot', '--fail-on', 'stalled', '--ledger', db]).status).toBe(0);
		const json = JSON.parse(runCli(['snapshot', '--json', '--ledger', db]).stdout);
		expect(json.queue.lanes.find((lane: {name: string}) => lane.name === 'failed')).toEqual({
			name: 'failed',
			total: 1,
			// host: this machine's host name (an added field, docs/snapshot.md)
			items: [
				{
					taskId: 't-1',
					host: expect.any(String),
					reason: 'exit 3',
					at: new Date(now - 1000).toISOString(),
					waitingSeconds: expect.any(Number),
				},
			],
		});
	});

	it('answers bad flags with one line naming the flag', () => {
		const db = ledgerWith(() => {});
		const cases: [string[], string][] = [
			[
				['snapshot', '--fail-on', 'bogus'],
				"controlroom: --fail-on: expected one of needs-you, lost, stalled, failed, reviews, decisions, got 'bogus'",
			],
			[['snapshot', '--since', 'soon'], "controlroom: --since: expected a duration like 90m, 24h or 7d, got 'soon'"],
			[['snapshot', '--since', '1h', '--all'], 'controlroom: snapshot: --since and --all exclude each other'],
			[['timeline', 'nope'], `controlroom: timeline: no task 'nope' (nor work order) in ${db}`],
		];
		for (const [args, message] of cases) {
			const result = runCli([...args, '--ledger', db]);
			expect(result.stderr.trim()).toBe(message);
			expect(result.status).not.toBe(0);
		}
		expect(runCli(['snapshot', '--ledger', join(scratchDir(), 'missing.db')]).stderr).toMatch(
			/^controlroom: --ledger: no ledger at /,
		);
		expect(runCli(['snapshot', '--bogus']).stderr.trim()).toBe(
			'controlroom: snapshot: unknown option --bogus (see controlroom snapshot --help)',
		);
	});

	it('refuses a ledger from a newer controlroom with one line', () => {
		const db = ledgerWith(() => {});
		withRawDb(db, raw => raw.pragma('user_version = 99'));
		const result = runCli(['snapshot', '--ledger', db]);
		expect(result.status).toBe(1);
		expect(result.stderr.trim()).toMatch(/^controlroom: ledger schema version 99 is newer than this controlroom understands/);
		expect(result.stderr).not.toContain('    at ');
	});

	it('uses CONTROLROOM_HOME when no --ledger is given', () => {
		const home = scratchDir();
		runCli(['ingest', '-'], {
			input: JSON.stringify(claudePayload('SessionStart', 'home-session')),
			env: {CONTROLROOM_HOME: home},
		});
		const json = JSON.parse(runCli(['snapshot', '--json'], {env: {CONTROLROOM_HOME: home}}).stdout);
		expect(json.tasks.map((task: {sessionId: string}) => task.sessionId)).toEqual(['home-session']);
	});
});
