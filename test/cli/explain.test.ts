import {spawnSync} from 'node:child_process';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType, newEvent, type NewEvent} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';

function ledgerWith(events: readonly NewEvent[]): string {
	const db = join(scratchDir('cr-explain-'), 'ledger.db');
	const ledger = openLedger(db);
	try {
		ledger.writer.append(events);
	} finally {
		ledger.close();
	}
	return db;
}

/** A PID that existed and is gone now: a child that has exited and been reaped. */
function deadPid(): number {
	const child = spawnSync('sh', ['-c', 'echo $$'], {encoding: 'utf8'});
	return Number(child.stdout.trim());
}

type Fact = {
	field: string;
	shows: string;
	basis: string;
	signals: {seq: number | null; type: string; source: string; says: string}[];
};

function explainJson(db: string, task: string): {isDisputed: boolean; facts: Fact[]} {
	const run = runCli(['explain', task, '--json', '--ledger', db]);
	expect(run.status, run.stderr).toBe(0);
	return JSON.parse(run.stdout);
}

describe('controlroom explain', () => {
	it('names both signals when a hook says running and its process is gone', () => {
		// Given a Claude session a hook says is mid-turn, with the PID of a process that has exited
		const now = Date.now();
		const pid = deadPid();
		const session = '44444444-aaaa-4bbb-8ccc-000000000001';
		const at = (ms: number) => ({taskId: `c-${session}`, at: now - ms, source: 'claude'});
		const db = ledgerWith([
			newEvent(EventType.registered, {title: 'fix it', sessionId: session}, at(5000)),
			newEvent(EventType.agentEvent, {event: 'SessionStart', sessionId: session, pid, pidFrom: 'CLAUDE_PID'}, at(4000)),
			newEvent(EventType.started, {pid, pidFrom: 'CLAUDE_PID'}, at(4000)),
			newEvent(EventType.agentEvent, {event: 'UserPromptSubmit', sessionId: session, pid}, at(3000)),
		]);
		// When it is explained
		const json = explainJson(db, `c-${session}`);
		const text = runCli(['explain', `c-${session}`, '--ledger', db]).stdout;
		// Then status is disputed, naming the ledger's event and the process table
		const status = json.facts.find(fact => fact.field === 'status');
		expect(json.isDisputed).toBe(true);
		expect(status?.basis).toBe('disputed');
		expect(status?.signals.map(signal => signal.source)).toEqual(['claude', 'explain']);
		expect(status?.signals[0]?.seq).toEqual(expect.any(Number));
		expect(status?.signals[1]).toMatchObject({seq: null, type: 'process-table', says: `process ${pid} is gone`});
		expect(json.facts.map(fact => fact.field)).toEqual(['status', 'health', 'pid', 'progress', 'tokens', 'lane', 'queue']);
		expect(text).toContain('[disputed]');
		expect(text).toContain(`process ${pid} is gone`);
		expect(text).toContain('lost');
	});

	it('names both signals when the wrapper says done and its session never ended', () => {
		// Given a wrapped run whose agent's session started on the wrapper's task, then the wrapper saw exit 0
		const now = Date.now();
		const pid = deadPid();
		const session = '44444444-aaaa-4bbb-8ccc-000000000002';
		const at = (ms: number, source = 'wrapper') => ({taskId: 'w-explain', at: now - ms, source});
		const db = ledgerWith([
			newEvent(EventType.registered, {title: 'wrapped', command: 'claude -p hi'}, at(5000)),
			newEvent(EventType.started, {pid, pgid: pid}, at(4900)),
			newEvent(EventType.agentEvent, {event: 'SessionStart', sessionId: session, pid}, at(4000, 'claude')),
			newEvent(EventType.exited, {exitCode: 0}, at(1000)),
		]);
		// When it is explained
		const status = explainJson(db, 'w-explain').facts.find(fact => fact.field === 'status');
		// Then status is disputed: the wrapper's exit and the session's last event, both named
		expect(status?.basis).toBe('disputed');
		expect(status?.shows).toContain('done');
		expect(status?.signals.map(signal => [signal.type, signal.source])).toEqual([
			['task.exited', 'wrapper'],
			['agent.event', 'claude'],
		]);
	});

	it('says what is unknown as unknown, and refuses an unknown task in one line', () => {
		const db = ledgerWith([
			newEvent(EventType.registered, {title: 'bare'}, {taskId: 'w-bare', at: Date.now(), source: 'wrapper'}),
		]);
		const facts = explainJson(db, 'w-bare').facts;
		expect(facts.find(fact => fact.field === 'pid')).toMatchObject({shows: 'unknown', basis: 'unknown'});
		expect(facts.find(fact => fact.field === 'tokens')?.basis).toBe('unknown');
		const missing = runCli(['explain', 'nope', '--ledger', db]);
		expect(missing.status).not.toBe(0);
		expect(missing.stderr.trim().split('\n')).toHaveLength(1);
	});
});
