import {describe, expect, it} from 'vitest';
import {parseVerdict, verdictLabel, type Verdict} from '../../src/core/review/verdict.ts';

describe('the verdict grammar', () => {
	it.each<[string, string, Verdict]>([
		['exactly APPROVE', 'APPROVE', {kind: 'APPROVE'}],
		['APPROVE with whitespace around it', '\n  APPROVE \n\n', {kind: 'APPROVE'}],
		['APPROVE with a CRLF ending', 'APPROVE\r\n', {kind: 'APPROVE'}],
		['one fix', '1. add a test for the empty file', {kind: 'FIX', fixes: ['add a test for the empty file']}],
		['two fixes', '1. add a test\n2. rename x to count', {kind: 'FIX', fixes: ['add a test', 'rename x to count']}],
		['fixes separated by blank lines', '1. add a test\n\n2. rename x', {kind: 'FIX', fixes: ['add a test', 'rename x']}],
		[
			'an indented line continues its item',
			'1. add a test\n   for the empty file\n2. rename x',
			{kind: 'FIX', fixes: ['add a test for the empty file', 'rename x']},
		],
		['CRLF line endings', '1. a\r\n2. b\r\n', {kind: 'FIX', fixes: ['a', 'b']}],
		[
			'ten items',
			Array.from({length: 10}, (_, i) => `${i + 1}. fix ${i + 1}`).join('\n'),
			{
				kind: 'FIX',
				fixes: Array.from({length: 10}, (_, i) => `fix ${i + 1}`),
			},
		],
	])('reads %s', (_name, answer, verdict) => {
		expect(parseVerdict(answer)).toEqual(verdict);
	});

	it.each<[string, string, string]>([
		['an empty answer', '   \n', 'empty answer'],
		['prose', 'Looks good to me, ship it.', 'line 1 is neither APPROVE nor a numbered fix: “Looks good to me, ship it.”'],
		['lower-case approve', 'approve', 'line 1 is neither APPROVE nor a numbered fix'],
		['Approve', 'Approve', 'line 1 is neither'],
		['APPROVE with a full stop', 'APPROVE.', 'line 1 is neither'],
		['APPROVE with a remark', 'APPROVE - nice work', 'line 1 is neither'],
		['APPROVE followed by fixes', 'APPROVE\n1. but fix this', 'line 1 is neither'],
		['a preamble before the list', 'Here are my fixes:\n1. add a test', 'line 1 is neither'],
		['a remark after the list', '1. add a test\nThanks!', 'line 2 is not a numbered fix: “Thanks!”'],
		['a list in a code fence', '```\n1. add a test\n```', 'line 1 is neither'],
		['a list starting at 2', '2. add a test', 'line 1: item numbered 2 where 1 was due'],
		['a skipped number', '1. a\n3. b', 'line 2: item numbered 3 where 2 was due'],
		['a repeated number', '1. a\n1. b', 'line 2: item numbered 1 where 2 was due'],
		['zero-padded numbers', '01. a', 'line 1: item numbered 01 where 1 was due'],
		['1) items', '1) add a test', 'line 1 is neither'],
		['a bullet list', '- add a test', 'line 1 is neither'],
		['an empty item', '1.', 'line 1 is neither'],
		['an item without a space after the dot', '1.add a test', 'line 1 is neither'],
		['an indented line after a blank line', '1. a\n\n   b', 'line 3 is not a numbered fix'],
		['markdown bold around the verdict', '**APPROVE**', 'line 1 is neither'],
	])('calls %s INVALID, naming the line', (_name, answer, reason) => {
		const verdict = parseVerdict(answer);
		expect(verdict.kind).toBe('INVALID');
		expect(verdict.kind === 'INVALID' ? verdict.reason : '').toContain(reason);
	});

	it('cuts a long offending line in the reason', () => {
		const verdict = parseVerdict(`This is a very long paragraph of prose ${'x'.repeat(200)}`);
		expect(verdict.kind === 'INVALID' ? verdict.reason.length : 0).toBeLessThan(120);
	});

	it.each<[Verdict, string]>([
		[{kind: 'APPROVE'}, 'APPROVE'],
		[{kind: 'FIX', fixes: ['a', 'b']}, 'FIX (2)'],
		[{kind: 'INVALID', reason: 'prose'}, 'INVALID'],
		[{kind: 'STOPPED', signal: 'SIGTERM'}, 'STOPPED (SIGTERM)'],
		[{kind: 'STOPPED', signal: null}, 'STOPPED (signal)'],
	])('labels %j as %s', (verdict, label) => {
		expect(verdictLabel(verdict)).toBe(label);
	});
});
