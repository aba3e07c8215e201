import {describe, expect, it} from 'vitest';
import {planApproval} from '../../src/core/effects/approval.ts';
import {effectState, foldOrders, type OrderEvent} from '../../src/core/effects/fold.ts';
import {deriveOrder, parseWorkOrder, type WorkOrder} from '../../src/core/effects/order.ts';
import {parseEffectId, planTools, type UpstreamTool} from '../../src/core/effects/plan.ts';
import {listedEffects, reconcileReport} from '../../src/core/effects/reconcile.ts';
import {referencedIds, resolveReferences} from '../../src/core/effects/refs.ts';
import {trackRecords} from '../../src/core/effects/track-record.ts';
import {summarizeArgs} from '../../src/core/effects/view.ts';
import {newEvent, type EventDataOf} from '../../src/core/events.ts';
import {orderSignals} from '../../src/core/human-queue.ts';

const ORDER = {
	order: 'o-42',
	worker: 'worker-1',
	budget: {calls: 20},
	expires: '1h',
	upstreams: {
		fs: {command: 'npx', args: ['mcp-server-filesystem', '/srv'], allow: ['read_text_file', 'write_file', 'move_file']},
	},
};

function order(overrides: Record<string, unknown> = {}): WorkOrder {
	const parsed = parseWorkOrder({...ORDER, ...overrides});
	if (!parsed.isValid) throw new Error(parsed.problems.join('; '));
	return parsed.order;
}

describe('work orders', () => {
	it('reads the issue example, with defaults', () => {
		const parsed = order();
		expect(parsed).toMatchObject({id: 'o-42', worker: 'worker-1', parent: null, budgetCalls: 20, expiresMs: 3_600_000});
		expect(parsed.upstreams[0]).toMatchObject({name: 'fs', env: {}, staged: null, prefix: 'fs__', cwd: null});
	});

	it.each([
		[{budget: undefined}, 'budget: Invalid input'],
		[{expires: 'soon'}, "expires: expected a duration like 30m, 1h or 7d, got 'soon'"],
		[{order: 'o 42'}, 'order: an order id is letters, digits'],
		[{upstreams: {}}, 'upstreams: name at least one upstream'],
		[{upstreams: {a__b: ORDER.upstreams.fs}}, 'upstreams.a__b: an upstream name is letters and digits'],
		[
			{upstreams: {fs: {...ORDER.upstreams.fs, staged: ['edit_file']}}},
			'upstreams.fs.staged: edit_file is staged but not in allow',
		],
		[{upstreams: {fs: {...ORDER.upstreams.fs, stagd: ['write_file']}}}, 'upstreams.fs: Unrecognized key: "stagd"'],
		[
			{derived_from: 'o-1', upstreams: {fs: {...ORDER.upstreams.fs, staged: ['write_file']}}},
			'a derived order never carries staged tools',
		],
	])('names the problem in %j', (overrides, problem) => {
		const parsed = parseWorkOrder({...ORDER, ...overrides});
		expect(parsed.isValid).toBe(false);
		if (!parsed.isValid) expect(parsed.problems.join('\n')).toContain(problem);
	});

	it('derives an order for a sub-agent without the staged tools, and never a larger budget', () => {
		const parent = order({upstreams: {fs: {...ORDER.upstreams.fs, staged: ['write_file']}}});
		const derived = deriveOrder(parent, {id: 'o-42.sub', worker: 'sub', calls: 5});
		expect(derived).toMatchObject({id: 'o-42.sub', parent: 'o-42', budgetCalls: 5});
		if ('problem' in derived) throw new Error(derived.problem);
		expect(derived.upstreams[0]).toMatchObject({allow: ['read_text_file', 'move_file'], staged: null});
		expect(deriveOrder(parent, {id: 'o-42.sub', worker: 'sub', calls: 50})).toEqual({
			problem: "--calls: 50 is more than o-42's budget of 20",
		});
	});
});

const tool = (name: string, readOnly?: boolean): UpstreamTool => ({
	name,
	inputSchema: {type: 'object'},
	...(readOnly === undefined ? {} : {annotations: {readOnlyHint: readOnly}}),
});
const FS_TOOLS = [tool('read_text_file', true), tool('write_file', false), tool('move_file'), tool('edit_file', false)];

describe('effect plans', () => {
	it.each([
		['inferred from annotations', undefined, {read_text_file: false, write_file: true, move_file: true}],
		['explicit', ['move_file'], {read_text_file: false, write_file: false, move_file: true}],
	])('stages tools %s', (_label, staged, expected) => {
		const plan = planTools(
			order({upstreams: {fs: {...ORDER.upstreams.fs, ...(staged ? {staged} : {})}}}),
			new Map([['fs', FS_TOOLS]]),
		);
		expect(Object.fromEntries([...plan.tools.values()].map(planned => [planned.tool, planned.isStaged]))).toEqual(expected);
		expect([...plan.tools.keys()]).toEqual(['fs__read_text_file', 'fs__write_file', 'fs__move_file']);
	});

	it('withholds staged tools in a derived order, including those the parent staged', () => {
		const derived = order({
			derived_from: 'o-1',
			upstreams: {fs: {...ORDER.upstreams.fs, allow: ['read_text_file', 'write_file']}},
		});
		const plan = planTools(derived, new Map([['fs', FS_TOOLS]]), new Set(['fs/read_text_file']));
		expect([...plan.tools.keys()]).toEqual([]);
		expect([...plan.withheld.keys()]).toEqual(['fs__read_text_file', 'fs__write_file']);
	});

	it('names allowed tools the upstream lacks, offers bare names with an empty prefix, and refuses clashes', () => {
		const bare = order({upstreams: {fs: {...ORDER.upstreams.fs, prefix: '', allow: ['write_file', 'write_fil']}}});
		const plan = planTools(bare, new Map([['fs', FS_TOOLS]]));
		expect([...plan.tools.keys()]).toEqual(['write_file']);
		expect(plan.missing).toEqual(['fs/write_fil']);
		const clash = order({
			upstreams: {
				a: {command: 'x', allow: ['write_file'], prefix: ''},
				b: {command: 'y', allow: ['write_file'], prefix: ''},
			},
		});
		expect(() =>
			planTools(
				clash,
				new Map([
					['a', FS_TOOLS],
					['b', FS_TOOLS],
				]),
			),
		).toThrow('would both be offered as write_file');
	});

	it.each([
		['pending:fs/write_file#3', 'fs/write_file#3'],
		['mem/create_entities#1', 'mem/create_entities#1'],
		['pending:fs/write_file', null],
		['fs#3', null],
	])('reads %s as an effect id', (text, id) => {
		expect(parseEffectId(text)?.id ?? null).toBe(id);
	});
});

let at = 1_000;
function ev<T extends OrderEvent['type']>(type: T, data: EventDataOf<T>, orderId = 'o-42', source = 'gateway'): OrderEvent {
	at += 1000;
	return {...newEvent(type, data, {taskId: orderId, at, source}), seq: at} as OrderEvent;
}
const opened = () =>
	ev('order.opened', {worker: 'worker-1', budgetCalls: 10, expiresMs: 60_000, file: '/o.yaml', digest: 'd', workerTask: 't-1'});
const held = (seq: number, tool = 'write_file', args: unknown = {path: `/f${seq}`}) =>
	ev('effect.held', {id: `fs/${tool}#${seq}`, seq, upstream: 'fs', tool, args, expiresAt: at + 60_000});

describe('the at-most-once state of an effect', () => {
	it.each([
		['held', [], 0, true, 'held'],
		['past its expiry', [], 120_000, true, 'expired'],
		['started by a live approval', ['started'], 0, true, 'started'],
		['started by an approval that died', ['started'], 0, false, 'outcome unknown'],
		['recorded as outcome unknown', ['started', 'unknown'], 0, true, 'outcome unknown'],
		['finished', ['started', 'finished'], 0, false, 'finished'],
		['sent back', ['sent_back'], 0, true, 'rejected'],
		['sent back after it started (ignored)', ['started', 'sent_back'], 0, true, 'started'],
		['recorded as expired', ['expired'], 0, true, 'expired'],
	] as const)('is %s', (_label, steps, later, isAlive, expected) => {
		at = 1_000;
		const events = [opened(), held(1)];
		for (const step of steps) {
			if (step === 'started')
				events.push(ev('effect.started', {id: 'fs/write_file#1', approverPid: 42, approverStartTime: 7}, 'o-42', 'cli'));
			if (step === 'finished') events.push(ev('effect.finished', {id: 'fs/write_file#1', isError: false, result: {}}));
			if (step === 'unknown') events.push(ev('effect.outcome_unknown', {id: 'fs/write_file#1', reason: 'gone'}));
			if (step === 'sent_back') events.push(ev('order.sent_back', {ids: ['fs/write_file#1'], reason: 'no'}));
			if (step === 'expired') events.push(ev('effect.expired', {id: 'fs/write_file#1'}));
		}
		const record = foldOrders(events).get('o-42');
		const effect = record?.effects[0];
		if (!effect) throw new Error('no effect');
		expect(effectState(effect, at + later, () => isAlive)).toBe(expected);
	});
});

describe('reconciling a report against the log', () => {
	at = 1_000;
	const logged = foldOrders([
		opened(),
		ev('effect.read', {id: 'fs/read_text_file#1', seq: 1, upstream: 'fs', tool: 'read_text_file', args: {}}),
		held(2),
		held(3),
	]).get('o-42');
	it.each([
		[['pending:fs/write_file#2', 'pending:fs/write_file#3'], []],
		[[{effect: 'pending:fs/write_file#2', tool: 'write_file', args: {path: '/f2'}}, 'fs/write_file#3'], []],
		[['pending:fs/write_file#2'], ['fs/write_file#3: held, but the report does not list it']],
		[
			['pending:fs/write_file#2', 'pending:fs/write_file#3', 'pending:fs/move_file#4'],
			["fs/move_file#4: the gateway's log for o-42 has no such effect"],
		],
		[['pending:fs/read_text_file#1', 'fs/write_file#2', 'fs/write_file#3'], ['fs/read_text_file#1: a read, not an effect']],
		[
			[{effect: 'fs/write_file#2', args: {path: '/other'}}, 'fs/write_file#3'],
			["fs/write_file#2: the report's arguments differ from the log's"],
		],
		[['fs/write_file#2', 'fs/write_file#2', 'fs/write_file#3'], ['fs/write_file#2: listed twice']],
		[
			['all of them'],
			[
				'all of them: not a placeholder (pending:UPSTREAM/TOOL#N)',
				'fs/write_file#2: held, but the report does not list it',
				'fs/write_file#3: held, but the report does not list it',
			],
		],
	])('%j → %j', (effects, problems) => {
		const listed = listedEffects({effects});
		if (!logged || !listed) throw new Error('setup');
		expect(reconcileReport(logged, listed, at)).toEqual(problems);
	});
	it('finds no list in a report without `effects`', () => {
		expect(listedEffects({summary: 'done'})).toBeNull();
	});
});

describe('$ref resolution (RFC 6901 pointers)', () => {
	const results = new Map<string, unknown>([
		['mem/create_entities#1', {structuredContent: {entities: [{name: 'Ada', 'a/b': 1, 'c~d': 2}]}}],
	]);
	const lookup = (id: string) => (results.has(id) ? {result: results.get(id)} : {missing: 'it has not run'});
	it.each([
		['/structuredContent/entities/0/name', 'Ada'],
		['/structuredContent/entities/0/a~1b', 1],
		['/structuredContent/entities/0/c~0d', 2],
	])('fills %s', (pointer, value) => {
		const args = {deep: [{x: {$ref: 'mem/create_entities#1', pointer}}], keep: {$ref: 'not an id'}};
		expect(referencedIds(args)).toEqual(['mem/create_entities#1']);
		expect(resolveReferences(args, lookup)).toEqual({isResolved: true, args: {deep: [{x: value}], keep: {$ref: 'not an id'}}});
	});
	it.each([
		[
			{$ref: 'mem/create_entities#1', pointer: '/structuredContent/missing/0'},
			'pointer /structuredContent/missing/0 into mem/create_entities#1',
		],
		[{$ref: 'mem/create_entities#1', pointer: '/structuredContent/entities/5'}, 'finds nothing'],
		[{$ref: 'mem/add_observations#9', pointer: ''}, 'mem/add_observations#9: it has not run'],
	])('says why %j cannot be filled', (reference, problem) => {
		const resolution = resolveReferences({value: reference}, lookup);
		expect(resolution.isResolved).toBe(false);
		if (!resolution.isResolved) expect(resolution.problem).toContain(problem);
	});
	it('treats an object with other keys beside $ref as data', () => {
		const schema = {$ref: 'mem/create_entities#1', type: 'object'};
		expect(resolveReferences({schema}, lookup)).toEqual({isResolved: true, args: {schema}});
	});
});

describe('planning an approval', () => {
	it('runs held effects in order, refuses --only ids the order lacks, and notes what is not sent again', () => {
		at = 1_000;
		const record = foldOrders([
			opened(),
			held(1),
			held(2, 'add', {name: {$ref: 'fs/write_file#1', pointer: '/x'}}),
			held(3),
			ev('effect.started', {id: 'fs/write_file#3', approverPid: 1}, 'o-42', 'cli'),
			ev('effect.finished', {id: 'fs/write_file#3', isError: false, result: {}}),
		]).get('o-42');
		if (!record) throw new Error('setup');
		expect(planApproval(record, [], at).toRun.map(effect => effect.id)).toEqual(['fs/write_file#1', 'fs/add#2']);
		const onlySecond = planApproval(record, ['fs/add#2'], at);
		expect(onlySecond.problems).toEqual(['fs/add#2 refers to fs/write_file#1, which is held: approve it first or with it']);
		expect(onlySecond.toRun).toEqual([]);
		const mixed = planApproval(record, ['pending:fs/write_file#3', 'fs/nope#9'], at);
		expect(mixed.notes).toEqual(['fs/write_file#3: finished, not sent again']);
		expect(mixed.problems).toEqual(['fs/nope#9: o-42 has no such effect']);
	});
});

describe('the order an effect was held under', () => {
	it('is the first opening: a later one names neither another file, digest nor staged tools', () => {
		at = 1_000;
		const first = ev('order.opened', {
			worker: 'worker-1',
			file: '/first.yaml',
			digest: 'd1',
			text: 'order: o-42',
			upstreams: {fs: {staged: ['write_file']}},
		});
		const second = ev('order.opened', {
			worker: 'worker-2',
			file: '/second.yaml',
			digest: 'd2',
			text: 'other',
			upstreams: {fs: {staged: []}},
		});
		const record = foldOrders([first, second]).get('o-42');
		expect(record).toMatchObject({
			worker: 'worker-1',
			file: '/first.yaml',
			digest: 'd1',
			source: 'order: o-42',
			stagedTools: ['fs/write_file'],
		});
	});

	it('refuses to plan an effect of a tool the order never held for approval', () => {
		at = 1_000;
		const record = foldOrders([
			ev('order.opened', {worker: 'worker-1', upstreams: {fs: {staged: ['write_file']}}}),
			held(1),
			held(2, 'move_file'),
		]).get('o-42');
		if (!record) throw new Error('setup');
		const plan = planApproval(record, [], at);
		expect(plan.toRun).toEqual([]);
		expect(plan.problems).toEqual([
			'fs/move_file#2: fs/move_file is not a tool o-42 holds for approval (the order as its gateway opened it): refused, nothing runs',
		]);
		// A ledger written before staged tools were recorded: the approval checks the order's allow list instead
		const older = foldOrders([opened(), held(1), held(2, 'move_file')]).get('o-42');
		expect(older?.stagedTools).toBeNull();
		expect(planApproval(older ?? record, [], at).problems).toEqual([]);
	});
});

describe("a worker's track record and the waiting lane", () => {
	it('counts first-time approvals, rework, failures, expiries, calls and tokens', () => {
		at = 1_000;
		const events = [
			opened(),
			held(1),
			ev('order.approved', {ids: ['fs/write_file#1']}, 'o-42', 'cli'),
			ev('effect.started', {id: 'fs/write_file#1', approverPid: 1}, 'o-42', 'cli'),
			ev('effect.finished', {id: 'fs/write_file#1', isError: true, error: 'denied'}),
			ev('order.opened', {worker: 'worker-1', budgetCalls: 5, expiresMs: 1000}, 'o-43'),
			held(1, 'write_file', {}),
		];
		events[events.length - 1] = {...events[events.length - 1], taskId: 'o-43'} as OrderEvent;
		events.push(ev('order.sent_back', {ids: ['fs/write_file#1'], reason: 'redo'}, 'o-43', 'cli'));
		const records = trackRecords(
			foldOrders(events).values(),
			task => (task === 't-1' ? {input: 10, output: 5, total: 15} : undefined),
			at,
		);
		expect(records).toEqual([
			expect.objectContaining({
				worker: 'worker-1',
				orders: 2,
				firstTimeApprovals: 1,
				rework: 1,
				failures: 1,
				expiries: 0,
				callsUsed: 2,
				callsBudget: 15,
				tokens: 15,
			}),
		]);
	});

	it('puts orders with held effects or an unknown outcome in the waiting lane, newest first', () => {
		at = 1_000;
		const orders = foldOrders([
			opened(),
			held(1),
			held(2),
			ev('order.opened', {worker: 'w2'}, 'o-9'),
			ev('effect.held', {id: 'x/y#1', seq: 1, upstream: 'x', tool: 'y', args: {}}, 'o-9'),
		]);
		const signals = orderSignals(orders.values(), at);
		expect(signals.map(signal => [signal.taskId, signal.lane, signal.reason])).toEqual([
			['o-42', 'waiting', '2 held effects to approve (worker-1)'],
			['o-9', 'waiting', '1 held effect to approve (w2)'],
		]);
	});

	it('summarizes arguments on one line', () => {
		const line = summarizeArgs({path: '/srv/a.txt', content: 'x'.repeat(100)}, 60);
		expect(line).toMatch(/^path="\/srv\/a.txt" content="x+…$/);
		expect(line).toHaveLength(60);
	});
});
