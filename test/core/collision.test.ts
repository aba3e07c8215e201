import {describe, expect, it} from 'vitest';
import {
	collisionAction,
	collisionPolicyFor,
	collisionReason,
	editedFileOf,
	findCollision,
	isSameTree,
	type EarlierQuestion,
} from '../../src/core/decisions/collision.ts';

// The second writer's rule (docs/decisions.md, "Collisions"), pure.

const FILE = '/src/app/src/a.ts';
const dirty = () => true;
const clean = () => false;

describe('findCollision', () => {
	it('names the newest edit of the same file by another live task', () => {
		const edits = [
			{taskId: 'c-other', file: FILE, at: 1_000},
			{taskId: 'c-other', file: FILE, at: 3_000},
			{taskId: 'c-third', file: '/src/app/src/b.ts', at: 5_000},
		];
		expect(findCollision('c-me', FILE, edits, dirty)).toEqual({file: FILE, otherTask: 'c-other', otherEditAt: 3_000});
	});

	it('ignores its own edits and its helpers', () => {
		const edits = [
			{taskId: 'c-me', file: FILE, at: 1_000},
			{taskId: 'c-me.agent-1', file: FILE, at: 2_000},
		];
		expect(findCollision('c-me', FILE, edits, dirty)).toBeNull();
		expect(isSameTree('c-me.agent-1', 'c-me')).toBe(true);
		expect(isSameTree('c-mex', 'c-me')).toBe(false);
	});

	it('holds nobody once the other writer committed the file', () => {
		expect(findCollision('c-me', FILE, [{taskId: 'c-other', file: FILE, at: 1}], clean)).toBeNull();
	});

	it('reads the file of each writing tool and nothing else', () => {
		expect(editedFileOf('Edit', {file_path: 'a.ts'})).toBe('a.ts');
		expect(editedFileOf('NotebookEdit', {notebook_path: 'n.ipynb'})).toBe('n.ipynb');
		expect(editedFileOf('Bash', {command: 'echo > a.ts'})).toBeNull();
		expect(editedFileOf('Write', {file_path: ''})).toBeNull();
		expect(editedFileOf('Write', null)).toBeNull();
	});
});

describe('collisionReason', () => {
	it('names both tasks, the file and the time, with escape codes made harmless', () => {
		const reason = collisionReason(
			'c-me',
			{file: '/x/\u001b[2Ja.ts', otherTask: 'c-other', otherEditAt: Date.UTC(2026, 0, 2, 3, 4, 5)},
			'd-1',
		);
		expect(reason).toContain('c-me');
		expect(reason).toContain('c-other');
		expect(reason).toContain('2026-01-02 03:04:05 UTC');
		expect(reason).toContain('d-1');
		expect(reason).not.toContain('\u001b');
	});
});

describe('collisionAction', () => {
	const collision = {file: FILE, otherTask: 'c-other', otherEditAt: 1};
	const earlier = (over: Partial<EarlierQuestion>): EarlierQuestion => ({
		decisionId: 'd-1',
		state: 'open',
		answer: null,
		reason: null,
		isThisCall: false,
		...over,
	});

	it('asks on a collision under hold, notes it under warn, and lets everything by under off', () => {
		expect(collisionAction({policy: 'hold', isHeadless: false, earlier: null, collision})).toEqual({kind: 'ask', collision});
		expect(collisionAction({policy: 'warn', isHeadless: false, earlier: null, collision})).toEqual({kind: 'warn', collision});
		expect(collisionAction({policy: 'off', isHeadless: false, earlier: earlier({}), collision})).toEqual({kind: 'pass'});
		expect(collisionAction({policy: 'hold', isHeadless: false, earlier: null, collision: null})).toEqual({kind: 'pass'});
	});

	it('never asks twice: a waiting question denies (interactive) or defers (headless) the call again', () => {
		expect(collisionAction({policy: 'hold', isHeadless: false, earlier: earlier({}), collision}).kind).toBe('deny');
		expect(collisionAction({policy: 'hold', isHeadless: true, earlier: earlier({}), collision}).kind).toBe('defer');
		expect(collisionAction({policy: 'hold', isHeadless: true, earlier: earlier({isThisCall: true}), collision}).kind).toBe(
			'defer',
		);
	});

	it("carries a person's answer: allow once, deny with the reason; a resumed call's answer is the resume's", () => {
		const allowed = earlier({state: 'answered', answer: 'allow'});
		expect(collisionAction({policy: 'hold', isHeadless: false, earlier: allowed, collision})).toEqual({
			kind: 'allowed',
			decisionId: 'd-1',
		});
		const denied = earlier({state: 'answered', answer: 'deny', reason: 'wait for c-other'});
		expect(collisionAction({policy: 'hold', isHeadless: false, earlier: denied, collision})).toEqual({
			kind: 'deny',
			reason: 'wait for c-other',
		});
		const resumed = earlier({state: 'used', answer: 'allow', isThisCall: true});
		expect(collisionAction({policy: 'hold', isHeadless: true, earlier: resumed, collision})).toEqual({kind: 'pass'});
	});
});

describe('collisionPolicyFor', () => {
	it('takes the nearest folder at or above the checkout, else *, else hold', () => {
		const map = {'*': 'warn', '/src': 'off', '/src/app': 'hold'} as const;
		expect(collisionPolicyFor(map, '/src/app')).toBe('hold');
		expect(collisionPolicyFor(map, '/src/lib')).toBe('off');
		expect(collisionPolicyFor(map, '/srcx')).toBe('warn');
		expect(collisionPolicyFor({}, '/anything')).toBe('hold');
	});
});
