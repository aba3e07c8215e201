import {assertNever} from '../assert-never.ts';
import type {LedgerEvent} from '../events.ts';
import type {HumanQueue} from '../human-queue.ts';
import {taskKey} from '../fleet.ts';
import type {Task} from '../task.ts';
import type {BoardMode} from './keymap.ts';
import type {Tone} from './tone.ts';

/** A task as the board holds it: on a fleet ledger, with the host it runs on. */
export type BoardTask = Task & {readonly host?: string};

/** A fleet request a host has not answered yet (docs/fleet.md): the board shows it as pending. */
export type PendingAction = {readonly key: string; readonly verb: string};

/** A line of text the board shows under the lanes until the next action. */
export type Notice = {readonly tone: Tone; readonly text: string};

/** What a text prompt is for. */
export type PromptKind = 'filter' | 'reason';

/** The board's whole state; the ledger is the truth, this is what was read of it. */
export type BoardState = {
	/** Tasks read so far, by key (the id; host and id on a fleet); only tasks not ended or ended recently are loaded at start. */
	readonly tasks: ReadonlyMap<string, BoardTask>;
	/** Fleet requests not answered yet, verbs by task key. */
	readonly pending?: ReadonlyMap<string, readonly string[]>;
	readonly queue: HumanQueue;
	/** The last ledger sequence read: the feed reads `seq > lastSeq` next. */
	readonly lastSeq: number;
	readonly mode: BoardMode;
	/** The mode to return to after help, a confirmation or a prompt. */
	readonly previousMode: BoardMode;
	readonly selectedId: string | null;
	readonly queueIndex: number;
	readonly filter: string;
	readonly prompt: {readonly kind: PromptKind; readonly text: string} | null;
	/** The task a confirmation (stop) is about. */
	readonly confirmTaskId: string | null;
	readonly timeline: {readonly taskId: string; readonly events: readonly LedgerEvent[]; readonly scroll: number} | null;
	readonly notice: Notice | null;
	readonly isLoaded: boolean;
};

/** Every change to the board state. */
export type BoardAction =
	| {
			readonly type: 'ledger-read';
			readonly tasks: readonly BoardTask[];
			/** Every pending fleet request, when the feed read them (replaces what the board held). */
			readonly pending?: readonly PendingAction[];
			/** A word from the feed itself (a fleet server out of reach), shown as a notice. */
			readonly notice?: Notice;
			readonly queue: HumanQueue;
			readonly lastSeq: number;
			readonly isFull: boolean;
			readonly timelineEvents?: readonly LedgerEvent[];
	  }
	| {readonly type: 'move'; readonly delta: number; readonly order: readonly string[]}
	| {readonly type: 'select'; readonly taskId: string}
	| {readonly type: 'toggle-focus'}
	| {readonly type: 'open-timeline'; readonly taskId: string; readonly events: readonly LedgerEvent[]}
	| {readonly type: 'back'}
	| {readonly type: 'toggle-help'}
	| {readonly type: 'ask-stop'; readonly taskId: string}
	| {readonly type: 'start-prompt'; readonly kind: PromptKind}
	| {readonly type: 'prompt-input'; readonly text: string}
	| {readonly type: 'prompt-commit'}
	| {readonly type: 'notify'; readonly notice: Notice | null};

/** The board before the first read. */
export function initialBoardState(): BoardState {
	return {
		tasks: new Map(),
		queue: {lanes: [], total: 0},
		lastSeq: 0,
		mode: 'list',
		previousMode: 'list',
		selectedId: null,
		queueIndex: 0,
		filter: '',
		prompt: null,
		confirmTaskId: null,
		timeline: null,
		notice: null,
		isLoaded: false,
	};
}

function readLedger(state: BoardState, action: Extract<BoardAction, {type: 'ledger-read'}>): BoardState {
	const tasks = action.isFull ? new Map<string, BoardTask>() : new Map(state.tasks);
	for (const task of action.tasks) tasks.set(taskKey(task), task);
	const pending = action.pending ? pendingByKey(action.pending) : state.pending;
	const timeline = state.timeline && action.timelineEvents ? {...state.timeline, events: action.timelineEvents} : state.timeline;
	const queueCount = action.queue.lanes.reduce((sum, lane) => sum + lane.items.length, 0);
	return {
		...state,
		tasks,
		...(pending ? {pending} : {}),
		queue: action.queue,
		lastSeq: Math.max(state.lastSeq, action.lastSeq),
		timeline,
		queueIndex: Math.min(state.queueIndex, Math.max(0, queueCount - 1)),
		...(action.notice ? {notice: action.notice} : {}),
		isLoaded: true,
	};
}

function pendingByKey(actions: readonly PendingAction[]): Map<string, string[]> {
	const byKey = new Map<string, string[]>();
	for (const {key, verb} of actions) byKey.set(key, [...(byKey.get(key) ?? []), verb]);
	return byKey;
}

function move(state: BoardState, delta: number, order: readonly string[]): BoardState {
	if (state.mode === 'timeline' && state.timeline) {
		return {...state, timeline: {...state.timeline, scroll: Math.max(0, state.timeline.scroll + delta)}};
	}
	if (state.mode === 'queue') {
		return {...state, queueIndex: clamp(state.queueIndex + delta, order.length)};
	}
	if (order.length === 0) return {...state, selectedId: null};
	// With nothing (or a row no longer listed) selected, the screen shows the cursor on the first row.
	const index = Math.max(0, state.selectedId === null ? 0 : order.indexOf(state.selectedId));
	const next = clamp(index + delta, order.length);
	return {...state, selectedId: order[next] ?? null};
}

function clamp(index: number, length: number): number {
	return Math.max(0, Math.min(length - 1, index));
}

function back(state: BoardState): BoardState {
	switch (state.mode) {
		case 'timeline':
			return {...state, mode: state.previousMode === 'queue' ? 'queue' : 'list', timeline: null};
		case 'help':
		case 'confirm':
			return {...state, mode: state.previousMode, confirmTaskId: null};
		case 'input':
			return {...state, mode: state.previousMode, prompt: null};
		case 'list':
		case 'queue':
			return state;
		default:
			return assertNever(state.mode);
	}
}

/** The board's one reducer: pure, so every transition is tested without Ink. */
export function reduceBoard(state: BoardState, action: BoardAction): BoardState {
	switch (action.type) {
		case 'ledger-read':
			return readLedger(state, action);
		case 'move':
			return move(state, action.delta, action.order);
		case 'select':
			return {...state, selectedId: action.taskId};
		case 'toggle-focus':
			return {...state, mode: state.mode === 'queue' ? 'list' : 'queue'};
		case 'open-timeline':
			return {
				...state,
				mode: 'timeline',
				previousMode: state.mode,
				// Opened from Needs you, the lane cursor stays where it was.
				selectedId: state.mode === 'queue' ? state.selectedId : action.taskId,
				timeline: {taskId: action.taskId, events: action.events, scroll: 0},
				notice: null,
			};
		case 'back':
			return back(state);
		case 'toggle-help':
			return state.mode === 'help' ? back(state) : {...state, mode: 'help', previousMode: state.mode};
		case 'ask-stop':
			return {...state, mode: 'confirm', previousMode: state.mode, confirmTaskId: action.taskId, notice: null};
		case 'start-prompt':
			return {
				...state,
				mode: 'input',
				previousMode: state.mode,
				prompt: {kind: action.kind, text: action.kind === 'filter' ? state.filter : ''},
				notice: null,
			};
		case 'prompt-input':
			return state.prompt ? {...state, prompt: {...state.prompt, text: action.text}} : state;
		case 'prompt-commit':
			if (!state.prompt) return state;
			return {
				...state,
				mode: state.previousMode,
				filter: state.prompt.kind === 'filter' ? state.prompt.text.trim() : state.filter,
				prompt: null,
			};
		case 'notify':
			return {...state, notice: action.notice};
		default:
			return assertNever(action);
	}
}
