import {describe, expect, it} from 'vitest';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {FUTURE_SKEW_MS} from '../../src/core/task.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {readSnapshot} from '../../src/ledger/snapshot-query.ts';
import {runCli} from '../helpers/cli.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {sandbox} from '../producers/helpers.ts';

const YEAR_MS = 365 * 24 * 3600 * 1000;
const STALL_S = 20;
const PINNED = '66666666-aaaa-4bbb-8ccc-000000000001';
const TWIN = '66666666-aaaa-4bbb-8ccc-000000000002';

const envelope = (at: number, sessionId: string, name = 'PostToolUse'): string =>
	JSON.stringify({at: new Date(at).toISOString(), source: 'claude', payload: claudePayload(name, sessionId)});

describe('an event dated a year ahead', () => {
	it('never pins its task: it stalls on time as its twin does, explain names the clamped time, later real events count', () => {
		// Given two sessions, each with a real event, and ten events a year ahead for one of them (via ingest)
		const box = sandbox();
		const start = Date.now();
		const lines = [envelope(start - 1000, PINNED, 'UserPromptSubmit'), envelope(start - 1000, TWIN, 'UserPromptSubmit')];
		for (let index = 0; index < 10; index += 1) lines.push(envelope(start + YEAR_MS + index * 1000, PINNED));
		const ingest = runCli(['ingest', '-'], {input: `${lines.join('\n')}\n`, env: box.env});
		expect(ingest.status, ingest.stderr).toBe(0);
		const recordedBy = Date.now();

		// Then each future event counts as when it was recorded: the task is idle from then, not from next year
		const ledger = openLedger(box.ledgerFile, {mustExist: true});
		const at = (now: number): Snapshot => readSnapshot(ledger.reader, {now, windowMs: null, stallSeconds: STALL_S});
		const pick = (snapshot: Snapshot, sessionId: string) => snapshot.tasks.find(task => task.sessionId === sessionId);
		const pinned = pick(at(recordedBy), PINNED);
		expect(Date.parse(pinned?.lastSeenAt ?? '')).toBeLessThanOrEqual(recordedBy);
		expect(Date.parse(pinned?.lastSeenAt ?? '')).toBeGreaterThanOrEqual(start - 1000);
		// and it stalls within the threshold of its last recording, as its twin does
		const later = at(recordedBy + (STALL_S + 1) * 1000);
		const healths = [pick(later, PINNED)?.health, pick(later, TWIN)?.health];
		expect(healths).toEqual(['stalled', 'stalled']);

		// explain names the event, its claimed date and the time it counts as
		const explain = runCli(['explain', pinned?.id ?? '', '--json'], {env: box.env});
		expect(explain.status, explain.stderr).toBe(0);
		const health = (JSON.parse(explain.stdout) as {facts: {field: string; note: string | null}[]}).facts.find(
			fact => fact.field === 'health',
		);
		const claimed = new Date(start + YEAR_MS + 9000).toISOString();
		expect(health?.note).toMatch(
			new RegExp(`event #\\d+ is dated ${claimed}, later than when it was recorded, so it counts as \\S+Z`),
		);
		const countedAs = Date.parse(/so it counts as (\S+Z)/.exec(health?.note ?? '')?.[1] ?? '');
		expect(countedAs).toBeGreaterThanOrEqual(start - FUTURE_SKEW_MS);
		expect(countedAs).toBeLessThanOrEqual(recordedBy);

		// When a real event comes later, it is the task's last sign of life
		const next = Date.now() + 1000;
		expect(runCli(['ingest', '-'], {input: `${envelope(next, PINNED)}\n`, env: box.env}).status).toBe(0);
		const after = pick(readSnapshot(ledger.reader, {now: next, windowMs: null, stallSeconds: STALL_S}), PINNED);
		expect(after).toMatchObject({lastSeenAt: new Date(next).toISOString(), health: 'active'});
		ledger.close();
		console.log(
			`future events ingested 10; pinned tasks 0 of 2; stalled at +${STALL_S + 1}s: ${healths.join(', ')}; ` +
				`explain: counts as ${new Date(countedAs).toISOString()}; a later real event made it ${after?.health}`,
		);
	});
});
