import {describe, expect, it} from 'vitest';
import {approvalCodeOf, normalApprovalCode, parseScopes} from '../../src/core/access.ts';
import {formatOfText, guessesOf, textProblem} from '../../src/core/contract/contract-text.ts';
import {foldIntake, isTakeable} from '../../src/core/contract/intake.ts';
import {tripwireCommand} from '../../src/core/contract/tripwires.ts';
import {newEvent, type LedgerEvent} from '../../src/core/events.ts';

// Stored contracts, pure: their record folded from events, a text's form and guesses, the scopes
// and codes of serve, the tripwires pickup may run.

let seq = 0;
function event<T extends Parameters<typeof newEvent>[0]>(
	type: T,
	taskId: string,
	data: Parameters<typeof newEvent<T>>[1],
	at = ++seq * 1000,
): LedgerEvent {
	return {...newEvent(type, data, {taskId, at, source: 'test'}), seq: ++seq};
}

const ID = 'ct-0123456789ab';
const drafted = event('contract.drafted', ID, {
	contractId: ID,
	kind: 'task',
	title: 'Export',
	writer: {client: 'Chat', owner: 'ana', via: 'serve', grant: 'g-1', host: null},
	guesses: ['context.expected'],
});

describe('a stored contract folded from its events', () => {
	it('goes draft, ready, taken, handed in, accepted', () => {
		const claim = `claim-${ID}-1`;
		const steps: [LedgerEvent, string][] = [
			[drafted, 'draft'],
			[event('contract.readied', ID, {contractId: ID, by: 'ana', how: 'person'}), 'ready'],
			[event('claim.taken', claim, {contractKey: ID, holder: 'worker-9'}), 'taken'],
			[event('claim.handed_in', claim, {acceptor: 'lee'}), 'handed in'],
			[event('work.accepted', claim, {by: 'lee'}), 'accepted'],
		];
		const seen: LedgerEvent[] = [];
		for (const [step, state] of steps) {
			seen.push(step);
			expect(foldIntake(seen).get(ID)?.state).toBe(state);
		}
		const record = foldIntake(seen).get(ID);
		expect(record).toMatchObject({
			writer: {client: 'Chat', owner: 'ana'},
			claim: {holder: 'worker-9'},
			acceptedBy: 'lee',
			takes: 1,
		});
		expect(record && isTakeable(record)).toBe(false);
	});

	it('is free again after a pass-back or a send-back, and ready again when a person says so', () => {
		const claim = `claim-${ID}-1`;
		const base = [
			drafted,
			event('contract.readied', ID, {contractId: ID, by: 'ana'}),
			event('claim.taken', claim, {contractKey: ID, holder: 'w'}),
		];
		const passed = foldIntake([...base, event('claim.passed_back', claim, {reason: 'no checkout', holder: 'w', actor: 'w'})]).get(
			ID,
		);
		expect(passed).toMatchObject({state: 'passed back', passedBack: {by: 'w', reason: 'no checkout'}});
		expect(passed && isTakeable(passed)).toBe(true);
		const rejected = foldIntake([
			...base,
			event('claim.handed_in', claim, {acceptor: 'lee'}),
			event('claim.passed_back', claim, {reason: 'sent back by lee: no test', holder: 'lee'}),
		]).get(ID);
		expect(rejected?.state).toBe('rejected');
		expect(foldIntake([drafted]).get(ID) && isTakeable(foldIntake([drafted]).get(ID)!)).toBe(false);
	});

	it('leaves claims of contract files alone', () => {
		expect(foldIntake([event('claim.taken', 'claim-abc-1', {contractKey: 'abc', holder: 'w'})]).size).toBe(0);
	});
});

describe("a contract's text", () => {
	it('is Markdown with closing front matter or a section heading, else YAML', () => {
		expect(formatOfText('---\nkind: task\n---\n\n## Goal\n\nx')).toBe('markdown');
		expect(formatOfText('title: x\n\n## Goal\n')).toBe('markdown');
		expect(formatOfText('# a YAML comment\nkind: task\ntitle: x\n')).toBe('yaml');
		expect(formatOfText('---\nkind: task\ntitle: x\n')).toBe('yaml');
	});

	it('refuses NUL, escape codes and lone surrogates, naming the line', () => {
		expect(textProblem('contract', 'a\nb\u0000')).toBe('contract: holds a NUL byte (U+0000) on line 2; a contract is plain text');
		expect(textProblem('contract', 'x \u001b[31m')).toContain('an escape code (ESC) (U+001B) on line 1');
		expect(textProblem('contract', '\u009b2J')).toContain('a control character (U+009B)');
		expect(textProblem('repository', 'shop\ud800')).toBe('repository: is not valid Unicode text');
		expect(textProblem('contract', 'tabs\tand\r\nlines')).toBeNull();
	});

	it('lists the fields marked as guesses', () => {
		expect(guessesOf({goal: 'x', context: {expected: 'two rows (guess)'}, steps: ['a', 'b (guess)']})).toEqual([
			'context.expected',
			'steps[1]',
		]);
	});
});

describe('access', () => {
	it('reads scopes, both when none are named, and refuses an unknown one', () => {
		expect(parseScopes([])).toEqual({scopes: ['work:read', 'work:write']});
		expect(parseScopes(['work:write'])).toEqual({scopes: ['work:write']});
		expect(parseScopes(['work:write work:read'])).toEqual({scopes: ['work:read', 'work:write']});
		expect(parseScopes(['admin'])).toEqual({unknown: 'admin'});
	});

	it('makes approval codes a person reads and types back in any case', () => {
		const code = approvalCodeOf(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]));
		expect(code).toBe('2345-6789');
		expect(normalApprovalCode(' 2345 6789 ')).toBe('2345-6789');
		expect(normalApprovalCode('kq7m3xpd')).toBe('KQ7M-3XPD');
		expect(normalApprovalCode('O0I1-LLLL')).toBeNull();
	});
});

describe('tripwires pickup may run', () => {
	it('takes only the exact shapes a repository defines, never a shell line', () => {
		expect(tripwireCommand('npm run guard')).toEqual(['npm', 'run', 'guard']);
		expect(tripwireCommand('`make check`')).toEqual(['make', 'check']);
		expect(tripwireCommand('pnpm lint')).toEqual(['pnpm', 'run', 'lint']);
		expect(tripwireCommand('npm test')).toEqual(['npm', 'test']);
		for (const line of [
			'npm run guard && rm -rf ~',
			'make check CC="rm -rf ~"',
			'rm -rf build',
			'a migration file changes',
			'npm run $(id)',
		])
			expect(tripwireCommand(line)).toBeNull();
	});
});
