import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType, newEvent} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';

describe('controlroom audit export', () => {
	it('prints every event with seq, times, producer, actor and proof, and its chain link', () => {
		const file = join(scratchDir('cr-audit-'), 'ledger.db');
		const ledger = openLedger(file);
		ledger.writer.append([
			newEvent(EventType.registered, {title: 'build'}, {taskId: 'w-1', at: 1_000, source: 'wrapper'}),
			newEvent(
				EventType.agentEvent,
				{event: 'Stop', payload: {text: 'bye\u001b]8;;x\u0007'}},
				{taskId: 'w-1', at: 2_000, source: 'claude'},
			),
			newEvent(
				EventType.decisionAnswered,
				{decisionId: 'd-1', answer: 'allow', by: 'ana'},
				{taskId: 'w-1', at: 3_000, source: 'cli'},
			),
			newEvent(
				EventType.gateRefused,
				{verb: 'decide', target: 'd-1', reason: 'process 7 (claude) is above it', agentName: 'claude'},
				{taskId: 'w-1', at: 4_000, source: 'cli'},
			),
			newEvent(EventType.needRaised, {message: 'look'}, {taskId: 'w-1', at: 5_000, source: 'cli'}),
		]);
		const head = ledger.reader.storedEventAt(5)?.hash;
		ledger.close();
		const result = runCli(['audit', 'export', '--ledger', file]);
		expect(result.status).toBe(0);
		expect(result.stdout).not.toContain('\u001b');
		const lines = result.stdout
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(lines.map(line => [line['seq'], line['type'], line['producer'], (line['actor'] as {kind: string}).kind])).toEqual([
			[1, 'task.registered', 'wrapper', 'controlroom'],
			[2, 'agent.event', 'claude', 'agent'],
			[3, 'decision.answered', 'cli', 'person'],
			[4, 'gate.refused', 'cli', 'agent'],
			[5, 'need.raised', 'cli', 'unproven'],
		]);
		expect(lines[2]).toMatchObject({
			at: new Date(3_000).toISOString(),
			arrivedAt: expect.stringMatching(/^\d{4}-/),
			task: 'w-1',
			actor: {name: 'ana', proof: {rule: 'terminal'}, passkey: null},
		});
		expect(lines[4]?.['hash']).toBe(head);
		const since = runCli(['audit', 'export', '--since', '4', '--format', 'jsonl', '--ledger', file]);
		expect(since.stdout.trim().split('\n')).toHaveLength(2);
		expect(runCli(['audit', 'export', '--format', 'csv', '--ledger', file])).toMatchObject({status: 64});
		expect(runCli(['audit', 'import', '--ledger', file])).toMatchObject({status: 64});
	}, 120_000);
});
