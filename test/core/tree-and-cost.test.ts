import {describe, expect, it} from 'vitest';
import {planBoardCommand} from '../../src/core/board/command-plan.ts';
import {matchBinding} from '../../src/core/board/keymap.ts';
import {selectScreen} from '../../src/core/board/screen.ts';
import {initialBoardState, reduceBoard, type BoardState} from '../../src/core/board/state.ts';
import {burnOf} from '../../src/core/burn.ts';
import {costOf, formatCost} from '../../src/core/cost.ts';
import {EventType, newEvent, type EventDataOf, type EventTypeName, type NewEvent} from '../../src/core/events.ts';
import {familyOf, HELPER_IDLE_CUTOFF_SECONDS} from '../../src/core/family.ts';
import {PriceTableError, shippedPriceTable, withUserPrices} from '../../src/core/price-table.ts';
import {bucketOf} from '../../src/core/spend.ts';
import type {Task} from '../../src/core/task.ts';
import {scanTranscriptText} from '../../src/core/transcript-usage.ts';
import {claudeResultLine} from '../../src/producers/claude-result.ts';
import {foldTasks} from '../helpers/board-fixture.ts';

const NOW = Date.UTC(2026, 11, 2, 3, 0, 0);
const MIN = 60_000;
const PRICES = shippedPriceTable();
/** One answer of the fake Anthropic server: 1234 in, 100 cache write, 50 cache read, 42 out. */
const ANSWER = {input: 1234, cacheWrite5m: 100, cacheWrite1h: 0, cacheRead: 50, output: 42, messages: 1};

function ev<T extends EventTypeName>(
	taskId: string,
	type: T,
	minutesAgo: number,
	data: EventDataOf<T>,
	source = 'claude',
): NewEvent {
	return newEvent(type, data, {taskId, at: NOW - minutesAgo * MIN, source});
}

/** A session with helpers: A done, B running (heard from a minute ago), C silent past the cutoff. */
function family(): Map<string, Task> {
	const answers = (n: number, model = 'claude-opus-5-5') => ({
		input: n * 1384,
		output: n * 42,
		byModel: {[model]: {...ANSWER, input: n * 1234, cacheWrite5m: n * 100, cacheRead: n * 50, output: n * 42, messages: n}},
	});
	return foldTasks([
		ev('c-1', EventType.agentEvent, 30, {event: 'SessionStart', sessionId: 's-1'}),
		ev('c-1', EventType.agentEvent, 29, {event: 'UserPromptSubmit'}),
		ev('c-1', EventType.tokensReported, 28, answers(2)),
		ev('c-1.a', EventType.registered, 28, {source: 'claude-helper', parentId: 'c-1', title: 'general-purpose'}),
		ev('c-1.a', EventType.started, 28, {}),
		ev('c-1.a', EventType.tokensReported, 27, answers(2)),
		ev('c-1.a', EventType.ended, 27, {reason: 'SubagentStop'}),
		ev('c-1.b', EventType.registered, 26, {source: 'claude-helper', parentId: 'c-1', title: 'haiku helper'}),
		ev('c-1.b', EventType.started, 26, {}),
		ev('c-1.b', EventType.tokensReported, 1, answers(1, 'claude-haiku-5-5')),
		ev('c-1.c', EventType.registered, 25, {source: 'claude-helper', parentId: 'c-1', title: 'quiet helper'}),
		ev('c-1.c', EventType.started, 25, {}),
		ev('c-1', EventType.agentEvent, 20, {event: 'Stop'}),
	]);
}

describe('the tree and its liveness', () => {
	it('counts a helper that works as alive, one silent past the 15-minute cutoff as not, and never makes the parent lost', () => {
		const facts = familyOf(family().values(), {now: NOW, prices: PRICES});
		const parent = facts.get('c-1');
		expect(HELPER_IDLE_CUTOFF_SECONDS).toBe(900);
		expect(parent).toMatchObject({children: ['c-1.a', 'c-1.b', 'c-1.c'], helpersActive: 1, helpersTotal: 3});
		expect(facts.get('c-1.b')?.isAliveHelper).toBe(true);
		expect(facts.get('c-1.c')?.isAliveHelper).toBe(false);
		// Within its cutoff, the quiet one counts.
		expect(familyOf(family().values(), {now: NOW - 11 * MIN, prices: PRICES}).get('c-1')?.helpersActive).toBe(2);
	});

	it('does not count a helper its ended parent left behind', () => {
		const tasks = family();
		const ended = foldTasks([ev('c-1', EventType.ended, 0.5, {reason: 'prompt_input_exit'})]).get('c-1') as Task;
		tasks.set('c-1', {...(tasks.get('c-1') as Task), status: 'done', endedAt: ended.endedAt});
		expect(familyOf(tasks.values(), {now: NOW, prices: PRICES}).get('c-1')?.helpersActive).toBe(0);
	});

	it('sums tree tokens exactly, at any depth, and survives a cycle of ids', () => {
		const tasks = family();
		tasks.set('c-1.b.x', {...(tasks.get('c-1.a') as Task), id: 'c-1.b.x', parentId: 'c-1.b'});
		const facts = familyOf(tasks.values(), {now: NOW, prices: PRICES});
		// parent 2 + A 2 + B 1 + B's own helper 2 answers
		expect(facts.get('c-1')?.treeTokens).toMatchObject({input: 7 * 1384, output: 7 * 42});
		expect(facts.get('c-1.b')?.children).toEqual(['c-1.b.x']);
		const loop = [
			{...(tasks.get('c-1.a') as Task), id: 'l-1', parentId: 'l-2'},
			{...(tasks.get('c-1.a') as Task), id: 'l-2', parentId: 'l-1'},
		];
		expect(familyOf(loop, {now: NOW, prices: PRICES}).size).toBe(2);
	});

	it('prices each answer with its own model: parent and helper A on opus, B on haiku', () => {
		const facts = familyOf(family().values(), {now: NOW, prices: PRICES});
		expect(facts.get('c-1')?.cost).toEqual({amount: 0.012572, currency: 'USD', priced: 'table', asOf: '2026-12-01'});
		expect(facts.get('c-1.b')?.cost.amount).toBeCloseTo(0.0001574, 7);
		expect(facts.get('c-1')?.treeCost.amount).toBeCloseTo(4 * 0.006286 + 0.0001574, 6);
		// C reported nothing: its cost is unknown, not 0; the tree's is still known (it spent nothing).
		expect(facts.get('c-1.c')?.cost).toMatchObject({amount: null, priced: 'unknown'});
	});

	it('keeps the agent’s own figure as reported, with the table’s beside it', () => {
		const tasks = family();
		const parent = foldTasks([ev('c-1', EventType.costReported, 0, {amount: 0.0253014, currency: 'USD', scope: 'tree'})]).get(
			'c-1',
		);
		tasks.set('c-1', {...(tasks.get('c-1') as Task), reportedCost: parent?.reportedCost ?? null});
		const tree = familyOf(tasks.values(), {now: NOW, prices: PRICES}).get('c-1')?.treeCost;
		expect(tree).toMatchObject({amount: 0.0253014, priced: 'reported', tableAmount: 0.0253014});
	});
});

describe('the price table', () => {
	it('names a source and a date for every price', () => {
		for (const [model, row] of Object.entries(PRICES.models)) {
			expect(PRICES.sources[row.source], model).toBeDefined();
			expect(row.asOf, model).toMatch(/^\d{4}-\d{2}-\d{2}$/);
		}
	});

	it('prices the 1-hour cache write, the long-prompt tier and US inference as Claude does', () => {
		const one = (bucket: string, usage: Partial<typeof ANSWER>) =>
			costOf({byModel: {[bucket]: {...ANSWER, ...usage}}, hasUnpricedTokens: false}, PRICES).amount;
		expect(one('claude-opus-5-5', {})).toBe(0.006286);
		expect(one('claude-opus-5-5', {input: 0, cacheWrite5m: 0, cacheRead: 0, output: 0, cacheWrite1h: 1e6})).toBe(8);
		expect(one(bucketOf('claude-haiku-5-5', true, false), {input: 200_000, cacheWrite5m: 0, cacheRead: 0, output: 1000})).toBe(
			0.1025,
		);
		expect(one(bucketOf('claude-opus-5-5', false, true), {})).toBeCloseTo(0.0069146, 7);
		expect(one('sonnet', {})).toBe(0.003143);
	});

	it('says unknown for a model it lacks, or tokens of no model, never 0', () => {
		const unpriced = costOf({byModel: {'claude-new-9': ANSWER}, hasUnpricedTokens: false}, PRICES);
		expect(unpriced).toEqual({amount: null, currency: 'USD', priced: 'unknown', asOf: null, unpriced: ['claude-new-9']});
		expect(formatCost(unpriced)).toBe('unknown');
		expect(costOf({byModel: {'claude-opus-5-5': ANSWER}, hasUnpricedTokens: true}, PRICES).amount).toBeNull();
		expect(costOf({byModel: null, hasUnpricedTokens: false}, PRICES).priced).toBe('unknown');
	});

	it('lays a user file over it, and refuses a wrong one in one line', () => {
		const table = withUserPrices(
			{asOf: '2026-12-02', models: {'my-model': {input: 1, output: 2, cacheWrite5m: 1, cacheWrite1h: 1, cacheRead: 0}}},
			'prices f.json',
		);
		expect(table.models['my-model']).toMatchObject({source: 'prices f.json', asOf: '2026-12-02'});
		expect(table.models['claude-opus-5-5']?.input).toBe(4);
		expect(() => withUserPrices({asOf: '2026-12-02', currency: 'EUR', models: {}}, 'f')).toThrow(PriceTableError);
		expect(() => withUserPrices({models: {x: {input: 1}}}, 'f')).toThrow(/asOf must be a date/);
		expect(() => withUserPrices({asOf: '2026-12-02', models: {'\u001b[31mx': {input: 'a'}}}, 'f')).toThrow(/\\u001b|␛|\\x1b/);
	});
});

describe('a transcript’s answers per model', () => {
	it('splits each answer into its model and tier, once per message id', () => {
		const line = (id: string, model: string, usage: Record<string, unknown>) =>
			JSON.stringify({type: 'assistant', message: {id, model, usage}});
		const text = [
			line('m1', 'claude-opus-5-5', {
				input_tokens: 1234,
				cache_creation_input_tokens: 100,
				cache_read_input_tokens: 50,
				output_tokens: 42,
			}),
			line('m1', 'claude-opus-5-5', {
				input_tokens: 1234,
				cache_creation_input_tokens: 100,
				cache_read_input_tokens: 50,
				output_tokens: 42,
			}),
			line('m2', 'claude-haiku-5-5', {
				input_tokens: 200_000,
				output_tokens: 1,
				cache_creation_input_tokens: 10,
				cache_creation: {ephemeral_1h_input_tokens: 4},
			}),
			line('m3', 'claude-opus-5-5', {input_tokens: 1, output_tokens: 1, inference_geo: 'us'}),
		].join('\n');
		const {usage} = scanTranscriptText(text, {lastMessageId: null, skipSidechain: true});
		expect(usage.messages).toBe(3);
		expect(usage.byModel).toEqual({
			'claude-opus-5-5': {...ANSWER},
			'claude-haiku-5-5@long': {input: 200_000, cacheWrite5m: 6, cacheWrite1h: 4, cacheRead: 0, output: 1, messages: 1},
			'claude-opus-5-5@us': {input: 1, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0, output: 1, messages: 1},
		});
	});
});

describe('Claude’s own cost from a -p result line', () => {
	it('reads total_cost_usd as the tree’s figure, and nothing from a line that is not a result', () => {
		const [finding] = claudeResultLine(
			JSON.stringify({type: 'result', total_cost_usd: 0.0567314, modelUsage: {'claude-opus-5-5': {costUSD: 0.056574}}}),
		);
		expect(finding).toMatchObject({
			kind: 'event',
			event: {type: EventType.costReported, data: {amount: 0.0567314, scope: 'tree'}},
		});
		expect(claudeResultLine('{"type":"assistant","total_cost_usd":1}')).toEqual([]);
		expect(claudeResultLine('{"type":"result","total_cost_usd":-1}')).toEqual([]);
		expect(claudeResultLine('{"type":"result","total_cost_usd":"1e9"}')).toEqual([]);
		expect(claudeResultLine('not json "total_cost_usd"')).toEqual([]);
	});
});

describe('the board’s tree', () => {
	function boardOf(): BoardState {
		return reduceBoard(initialBoardState(), {
			type: 'ledger-read',
			tasks: [...family().values()],
			queue: {lanes: [], total: 0},
			lastSeq: 20,
			isFull: true,
		});
	}
	const size = {width: 160, height: 40};
	const rowsOf = (state: BoardState) =>
		selectScreen(state, NOW, size).lanes.lines.flatMap(line => (line.kind === 'row' ? [line.row] : []));
	const press = (state: BoardState, key: {rightArrow?: boolean; leftArrow?: boolean}): BoardState => {
		const binding = matchBinding('', key, 'list');
		if (!binding) throw new Error('no binding');
		const plan = planBoardCommand(
			state,
			selectScreen(state, NOW, size),
			binding,
			{canStop: true, canSendBack: true, canApprove: true, canSendBackOrder: true},
			NOW,
		);
		return plan.actions.reduce(reduceBoard, state);
	};

	it('folds the helpers into the parent’s one line, opens them with → and folds them with ← from a helper', () => {
		const folded = reduceBoard(boardOf(), {type: 'select', taskId: 'c-1', index: 0});
		const rows = rowsOf(folded);
		expect(rows.map(row => row.id)).toEqual(['c-1']);
		expect(rows[0]?.title).toContain('▸');
		expect(rows[0]?.title).toContain('3 helpers: 1 active, 2 ended');
		expect(rows[0]?.status).toBe('active (1 helper running)');
		// The tokens and cost cells are the tree's: 5 answers, 4 opus and 1 haiku.
		expect(rows[0]?.tokens).toBe('7.1k');
		expect(rows[0]?.cost).toBe('$0.025');
		const open = press(folded, {rightArrow: true});
		const opened = rowsOf(open);
		expect(opened.map(row => row.id)).toEqual(['c-1', 'c-1.a', 'c-1.b', 'c-1.c']);
		expect(opened[2]?.title).toBe('└ haiku helper');
		expect(opened[1]?.status).toBe('done');
		const onHelper = reduceBoard(open, {type: 'select', taskId: 'c-1.b', index: 2});
		const back = press(onHelper, {leftArrow: true});
		expect(rowsOf(back).map(row => row.id)).toEqual(['c-1']);
		expect(back.selectedId).toBe('c-1');
	});

	it('shows the burn rate of the last ten minutes in the header and in the drill-down', () => {
		const state = reduceBoard(boardOf(), {type: 'select', taskId: 'c-1', index: 0});
		const screen = selectScreen(state, NOW, size);
		// Only B's answer (a minute ago) is in the window: 1426 tokens over 10 minutes, one haiku answer's price.
		expect(screen.header.burn).toBe('burn 143 tok/min · <$0.0001/min');
		const burn = burnOf(family().values(), NOW, PRICES);
		expect(burn.tokensPerMinute).toBe(142.6);
		expect(burn.costPerMinute).toBeCloseTo(0.00001574, 12);
		const drill = selectScreen(reduceBoard(state, {type: 'open-timeline', taskId: 'c-1', events: []}), NOW, size);
		expect(drill.timeline?.row?.burn).toBe('burn 143 tok/min · <$0.0001/min');
		expect(drill.timeline?.row?.cost).toBe('$0.025');
		// Eleven minutes on, nothing is left in the window.
		expect(selectScreen(state, NOW + 11 * MIN, size).header.burn).toBeNull();
	});
});

describe("Claude's own telemetry cost", () => {
	it('replaces the table’s estimate of the same answers, marked reported, with the table’s figure beside it', () => {
		const answers = {
			input: 2 * 1384,
			output: 2 * 42,
			byModel: {'claude-opus-5-5': {...ANSWER, input: 2 * 1234, cacheWrite5m: 200, cacheRead: 100, output: 84, messages: 2}},
		};
		const request = (minutesAgo: number, costUsd: number) =>
			ev(
				'c-9',
				EventType.telemetryRequest,
				minutesAgo,
				{model: 'claude-opus-5-5', input: 1384, output: 42, costUsd, sessionId: 's-9'},
				'otel',
			);
		const tasks = foldTasks([
			ev('c-9', EventType.agentEvent, 5, {event: 'SessionStart', sessionId: 's-9'}),
			ev('c-9', EventType.tokensReported, 4, answers),
			request(4, 0.006286),
			request(3, 0.006286),
		]);
		const own = familyOf(tasks.values(), {now: NOW, prices: PRICES}).get('c-9');
		const table = costOf({byModel: tasks.get('c-9')?.spend ?? null, hasUnpricedTokens: false}, PRICES);
		expect(own?.cost).toMatchObject({amount: 0.012572, currency: 'USD', priced: 'reported', tableAmount: table.amount});
		expect(own?.treeCost).toEqual(own?.cost);
		// Without telemetry the table's figure stands.
		const untold = foldTasks([
			ev('c-8', EventType.agentEvent, 5, {event: 'SessionStart'}),
			ev('c-8', EventType.tokensReported, 4, answers),
		]);
		expect(familyOf(untold.values(), {now: NOW, prices: PRICES}).get('c-8')?.cost).toMatchObject({
			priced: 'table',
			amount: table.amount,
		});
	});
});
