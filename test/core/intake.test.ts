import {describe, expect, it} from 'vitest';
import {approvalCodeOf, normalApprovalCode, parseScopes} from '../../src/core/access.ts';
import {formatOfText, GUESS_MARKER, textProblem, valueProblem} from '../../src/core/contract/contract-text.ts';
import {guessesOf} from '../../src/core/contract/markers.ts';
import {foldIntake, isTakeable} from '../../src/core/contract/intake.ts';
import {tripwireOf} from '../../src/core/contract/commands.ts';
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
			// A person's yes is the record every contract gets (contract ready), on the contract's own pseudo-task.
			[event('contract.ready', `contract-${ID}`, {contract: ID, contractKey: ID, by: 'ana', acceptor: 'ana'}), 'ready'],
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
			readied: {by: 'ana', how: 'person'},
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

	it('finds a control character a YAML escape decoded into a value or a key, naming its field', () => {
		expect(valueProblem({title: 'Fix \u001b[31mred', goal: 'x'})).toBe(
			'title: holds an escape code (ESC) (U+001B); a contract is plain text',
		);
		expect(valueProblem({context: {steps: ['ok', 'b\u0000']}})).toBe(
			'context.steps[1]: holds a NUL byte (U+0000); a contract is plain text',
		);
		expect(valueProblem({scope: {'a\u009b': 'x'}})).toContain('scope.a');
		expect(valueProblem({goal: 'tabs\tand\nlines', checks: ['a', 'b'], n: 3})).toBeNull();
		expect(valueProblem(null)).toBeNull();
	});

	it('lists the fields marked as guesses, with the marker a tool names', () => {
		const document = {goal: 'x', context: {expected: `two rows ${GUESS_MARKER}`}, steps: ['a', 'b (guess)']};
		expect(guessesOf(document).map(guess => guess.field)).toEqual(['context.expected', 'steps[1]']);
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
		const argv = (line: string) => {
			const tripwire = tripwireOf(line);
			return tripwire.isRunnable ? tripwire.argv : null;
		};
		expect(argv('npm run guard')).toEqual(['npm', 'run', 'guard']);
		expect(argv('`make check`')).toEqual(['make', 'check']);
		expect(argv('pnpm lint')).toEqual(['pnpm', 'lint']);
		expect(argv('npm test')).toEqual(['npm', 'test']);
		for (const line of [
			'npm run guard && rm -rf ~',
			'make check CC="rm -rf ~"',
			'rm -rf build',
			'a migration file changes',
			'npm run $(id)',
		])
			expect(argv(line)).toBeNull();
	});
});
