import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {ingestLines} from '../../src/ledger/ingest.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {scratchLedger} from '../helpers/ledger.ts';
import {claudePayload, claudeSessionLines, fixture} from '../helpers/payloads.ts';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

describe('ingest', () => {
	it('adds nothing when the same file is ingested twice', () => {
		const dir = scratchDir();
		const file = join(dir, 'history.jsonl');
		writeFileSync(file, `${claudeSessionLines('11111111-aaaa-4bbb-8ccc-000000000001', 5).join('\n')}\n`);
		const db = join(dir, 'ledger.db');
		const first = runCli(['ingest', file, '--ledger', db, '--json']);
		const second = runCli(['ingest', file, '--ledger', db, '--json']);
		expect(first.status).toBe(0);
		expect(JSON.parse(first.stdout)).toMatchObject({lines: 14, rejected: 0});
		expect(JSON.parse(first.stdout).appended).toBeGreaterThan(14);
		expect(JSON.parse(second.stdout)).toMatchObject({lines: 14, appended: 0, rejected: 0});
	});

	it('lands 997 events and records 3 rejects with line numbers when 3 of 1,000 lines are malformed', () => {
		// Given 1,000 lines, each a distinct Notification payload, with 3 broken ones at known lines
		const lines = Array.from({length: 1000}, (_, index) =>
			JSON.stringify(claudePayload('Stop', `22222222-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`)),
		);
		lines[9] = '{"session_id": "truncated';
		lines[499] = JSON.stringify({hook_event_name: 'Stop'});
		lines[998] = '[1, 2, 3]';
		const dir = scratchDir();
		const file = join(dir, 'history.jsonl');
		writeFileSync(file, lines.join('\n'));
		const db = join(dir, 'ledger.db');
		// When it is ingested
		const result = runCli(['ingest', file, '--ledger', db, '--json']);
		// Then 997 events landed (one agent event per Stop payload) and 3 rejects name line and reason
		expect(result.status).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({lines: 1000, appended: 997, rejected: 3});
		const snapshot = runCli(['snapshot', '--json', '--all', '--ledger', db]);
		expect(JSON.parse(snapshot.stdout).tasks).toHaveLength(997);
		const opened = openLedger(db);
		try {
			const rejects = opened.reader.rejects(10).map(r => ({line: r.line, reason: r.reason}));
			expect(rejects).toEqual([
				{line: 999, reason: 'payload: expected a JSON object, got an array'},
				{line: 500, reason: 'session_id: Invalid input: expected string, received undefined'},
				{line: 10, reason: 'line: not valid JSON'},
			]);
		} finally {
			opened.close();
		}
	});

	it('keeps unknown events and extra fields instead of rejecting them', () => {
		ledger = scratchLedger();
		const unknown = {...fixture('claude/Stop.json'), hook_event_name: 'TeammateIdle', brand_new_field: {nested: true}};
		const stats = ingestLines(ledger, [JSON.stringify(unknown)], {origin: 'test', now: 5_000});
		expect(stats).toMatchObject({appended: 1, rejected: 0});
		const [stored] = ledger.reader.eventsSince(0, 10);
		expect(stored?.data).toMatchObject({event: 'TeammateIdle', payload: {brand_new_field: {nested: true}}});
	});

	it('reads spool envelopes with their own time and source', () => {
		ledger = scratchLedger();
		const envelope = {
			at: '2026-11-29T20:00:00.000Z',
			source: 'codex',
			payload: {...fixture('claude/SessionStart.json'), turn_id: 't1'},
		};
		ingestLines(ledger, [JSON.stringify(envelope)], {origin: 'test', now: 0});
		const [task] = ledger.reader.tasksForView(null);
		expect(task).toMatchObject({source: 'codex', status: 'running', lastEventAt: Date.parse(envelope.at)});
	});

	it('reads an envelope time in any form the schema accepts, and refuses a day that does not exist', () => {
		ledger = scratchLedger();
		const payload = fixture('claude/Stop.json');
		const times = [
			'2024-02-29T23:59:59.999Z',
			'2026-11-29T20:00:00Z',
			'2026-11-29T21:00:00.5+01:00',
			'0099-01-01T00:00:00.000Z',
			'2023-02-29T00:00:00.000Z',
			'2026-04-31T00:00:00.000Z',
			'2026-01-01T24:00:00.000Z',
			'2026-01-01T00:60:00.000Z',
			'2026-1x-01T00:00:00.000Z',
		];
		const stats = ingestLines(
			ledger,
			times.map(at => JSON.stringify({at, source: 'claude', payload})),
			{origin: 'test', now: 0},
		);
		expect(stats).toMatchObject({appended: 4, rejected: 5});
		const stored = ledger.reader.eventsSince(0, 10).map(event => event.at);
		expect(stored).toEqual(times.slice(0, 4).map(at => Date.parse(at)));
		expect(ledger.reader.rejects(10).map(reject => reject.line)).toEqual(expect.arrayContaining([5, 6, 7, 8, 9]));
	});

	it('rejects an envelope with a bad field and names it', () => {
		ledger = scratchLedger();
		const stats = ingestLines(ledger, [JSON.stringify({at: 'yesterday', source: 'claude', payload: {}})], {
			origin: 'test',
			now: 0,
		});
		expect(stats.rejected).toBe(1);
		expect(ledger.reader.rejects(1)[0]?.reason).toMatch(/^envelope at: /);
	});

	it('says clearly when the file cannot be read', () => {
		const result = runCli(['ingest', '/nonexistent/history.jsonl']);
		expect(result.status).toBe(1);
		expect(result.stderr.trim()).toBe('controlroom: ingest: cannot read /nonexistent/history.jsonl: ENOENT');
	});
});
