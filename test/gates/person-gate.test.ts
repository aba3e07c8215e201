import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runAsPerson} from '../helpers/person.ts';

// The actor rule at every gate, through the real binary: what is not a person at a terminal is
// refused with one line and exit 77 before anything else happens, and the attempt is recorded
// for the board. The real Claude worker's attempt is in test/e2e/effects-claude.e2e.test.ts, the ways round the rule in person-gate-bypass.test.ts.

function ledgerWithANeed(): {ledger: string; env: NodeJS.ProcessEnv; needId: string} {
	const dir = scratchDir('cr-person-gate-');
	const ledger = join(dir, 'ledger.db');
	const env = {CONTROLROOM_HOME: dir};
	expect(runCli(['run', '--ledger', ledger, '--', 'true'], {env}).status).toBe(0);
	expect(runCli(['need', 'pick the release branch', '--ledger', ledger], {env}).status).toBe(0);
	const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger], {env}).stdout) as Snapshot;
	const needId = snapshot.queue.lanes.flatMap(lane => lane.items).find(item => item.taskId.startsWith('need-'))?.taskId ?? '';
	return {ledger, env, needId};
}

const YES_VERBS: readonly (readonly [string, readonly string[], string])[] = [
	['effects approve', ['effects', 'approve', 'o-1'], 'o-1'],
	['effects reject', ['effects', 'reject', 'o-1', '--reason', 'no'], 'o-1'],
	['accept', ['accept', 'claim-1'], 'claim-1'],
	['ack', ['ack', 'need-1'], 'need-1'],
	['send-back', ['send-back', 'w-1', '--reason', 'again'], 'w-1'],
	['review', ['review', 'w-1', '--reviewer', 'echo APPROVE'], 'w-1'],
	['decide', ['decide', 'd-1', 'allow'], 'd-1'],
];

describe('only a person says yes', () => {
	it.each(YES_VERBS)('refuses `%s` from a process without a terminal: one line, exit 77, recorded', (verb, args, target) => {
		const {ledger, env} = ledgerWithANeed();
		const run = runCli([...args, '--ledger', ledger], {env});
		expect(run.status).toBe(77);
		expect(run.stderr).toMatch(
			new RegExp(
				`^controlroom: ${verb} \\S+: refused: only a person at a terminal says yes, and its stdin is not a terminal .*\\n$`,
			),
		);
		const open = openLedger(ledger);
		try {
			const [refused] = open.reader.eventsOfType([EventType.gateRefused]);
			expect(refused?.data).toMatchObject({verb, target, door: 'terminal', reason: 'its stdin is not a terminal'});
			expect(refused?.taskId).toBe(target);
		} finally {
			open.close();
		}
	});

	it('shows the refused attempt in Needs you, and a person acknowledges it at a terminal', () => {
		const {ledger, env, needId} = ledgerWithANeed();
		expect(runCli(['ack', needId, '--ledger', ledger], {env}).status).toBe(77);
		// A marker in the environment is enough, even on a terminal of its own
		const marked = runAsPerson(['ack', needId, '--ledger', ledger], {env: {...env, CLAUDE_PID: '4242'}});
		expect(marked.status).toBe(77);
		expect(marked.stderr).toContain('its environment carries CLAUDE_PID');
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger], {env}).stdout) as Snapshot;
		const needs = snapshot.queue.lanes.find(lane => lane.name === 'needs')?.items ?? [];
		expect(needs.map(item => item.reason)).toEqual([
			'pick the release branch',
			expect.stringMatching(/^refused: an agent asked to ack need-\w+ \(its stdin is not a terminal\)$/),
			expect.stringMatching(/^refused: an agent asked to ack need-\w+ \(its environment carries CLAUDE_PID, which an agent sets/),
		]);
		// The need is still there: nothing was acknowledged. A person does it.
		const person = runAsPerson(['ack', needId, '--ledger', ledger], {env});
		expect(person.status, person.stderr).toBe(0);
		expect(person.stdout).toBe(`acknowledged ${needId} (needs: pick the release branch)\n`);
		const refusedEntry = needs[1]?.taskId ?? '';
		expect(runAsPerson(['ack', refusedEntry, '--ledger', ledger], {env}).status).toBe(0);
	});

	it('refuses again, refreshing one entry rather than adding another, when the same agent asks again', () => {
		const {ledger, env} = ledgerWithANeed();
		for (let attempt = 0; attempt < 3; attempt += 1)
			expect(runAsPerson(['effects', 'approve', 'o-9', '--ledger', ledger], {env: {...env, CODEX_THREAD_ID: 't-1'}}).status).toBe(
				77,
			);
		const snapshot = JSON.parse(runCli(['snapshot', '--json', '--ledger', ledger], {env}).stdout) as Snapshot;
		const refused = snapshot.queue.lanes
			.find(lane => lane.name === 'needs')
			?.items.filter(item => item.reason.startsWith('refused'));
		expect(refused).toHaveLength(1);
	});
});
