import type {Stats} from '../stats/measures.ts';
import {assertNever} from '../assert-never.ts';
import type {DecisionRecord} from '../decisions/fold.ts';
import type {LedgerEvent} from '../events.ts';
import type {HumanQueue} from '../human-queue.ts';
import {taskKey} from '../fleet.ts';
import type {VerdictRecord} from '../review/reviews.ts';
import type {Task} from '../task.ts';
import type {BoardContract} from '../contract/intake.ts';
import {heldKey, type HeldEffectRef, type OrdersSnapshot} from './effects-view.ts';
import type {BoardMode} from './keymap.ts';
import type {TaskLog} from './log-view.ts';
import {nextSortOrder, type SortOrder} from './sort.ts';
import type {Tone} from './tone.ts';

/** A task as the board holds it: on a fleet ledger, with the host it runs on. */
export type BoardTask = Task & {readonly host?: string};

/** A fleet request a host has not answered yet (docs/fleet.md): the board shows it as pending. */
export type PendingAction = {readonly key: string; readonly verb: string};

/** A line of text the board shows under the lanes until the next action. */
export type Notice = {readonly tone: Tone; readonly text: string};

/**
 * The ledger file was moved, deleted or replaced under the board, which now reads and writes the
 * file at its path (a new one if nothing was there); a moved ledger is still at `movedTo`.
 */
export type LedgerFileAlert = {
	readonly kind: 'moved' | 'deleted' | 'replaced';
	readonly at: number;
	readonly path: string;
	readonly movedTo?: string;
	/** The file the board reads now: its path, or the moved ledger until a new one is made at its path. */
	readonly nowIn?: string;
};

/** What a text prompt is for. */
export type PromptKind = 'filter' | 'reason' | 'headroom';

/** A view opened over the lanes, and the mode Esc returns to. */
type Opened = {readonly taskId: string; readonly returnMode: BoardMode};

/** The board's whole state; the ledger is the truth, this is what was read of it. */
export type BoardState = {
	/** Tasks read so far, by key (the id; host and id on a fleet); only tasks not ended or ended recently are loaded at start. */
	readonly tasks: ReadonlyMap<string, BoardTask>;
	/** Fleet requests not answered yet, verbs by task key. */
	readonly pending?: ReadonlyMap<string, readonly string[]>;
	readonly queue: HumanQueue;
	/** The latest verdicts, for the Reviews panel. */
	readonly verdicts: readonly VerdictRecord[];
	/** Stored contracts still to act on, for the Contracts panel (docs/serve.md). */
	readonly contracts: readonly BoardContract[];
	/** The last ledger sequence read: the feed reads `seq > lastSeq` next. */
	readonly lastSeq: number;
	readonly mode: BoardMode;
	/** The mode to return to after help, a confirmation or a prompt. */
	readonly previousMode: BoardMode;
	/** The task under the cursor; it stays on that task when the list around it changes. */
	readonly selectedId: string | null;
	/** Where the cursor was in the list, for when its task leaves the list (filtered out, aged out). */
	readonly selectedIndex: number;
	/** Tasks whose helpers are shown beneath them (→ opens, ← folds; docs/tree-and-cost.md); all folded when absent. */
	readonly openTrees?: ReadonlySet<string>;
	readonly queueIndex: number;
	/** The filter as typed (it applies live, while typing). */
	readonly filter: string;
	readonly sort: SortOrder;
	/** A reason prompt with `orderId` sends that order's held effects back on Enter. */
	/** …and with `decisionId` denies that question with the reason (docs/decisions.md). */
	readonly prompt: {
		readonly kind: PromptKind;
		readonly text: string;
		readonly orderId?: string;
		readonly decisionId?: string;
	} | null;
	/** The task a confirmation (stop) is about. */
	readonly confirmTaskId: string | null;
	/** The task a reason prompt (send back) is about. */
	readonly promptTaskId: string | null;
	/** A send-back the reason prompt committed, for the board to carry out once. */
	readonly pendingSendBack: {readonly taskId: string; readonly reason: string} | null;
	/**
	 * An answer to a question the prompt committed (a deny's reason, a budget's headroom), for the
	 * board to check and carry out once: held here so it is the whole text typed, even when the last
	 * keys and Enter came before the board drew them.
	 */
	readonly pendingAnswer: {readonly decisionId: string; readonly kind: 'reason' | 'headroom'; readonly text: string} | null;
	readonly timeline: (Opened & {readonly events: readonly LedgerEvent[]; readonly scroll: number}) | null;
	/** The log view: its lines once read, and how far above the newest line it is scrolled (0 follows). */
	readonly log: (Opened & {readonly view: TaskLog | null; readonly fromEnd: number}) | null;
	readonly notice: Notice | null;
	/** Stays on screen until the board is closed: the ledger it started with is gone. */
	readonly ledgerAlert: LedgerFileAlert | null;
	/** Hook events recorded nowhere (the ledger's `hook.dropped` counter). */
	readonly dropped: number;
	/** What `PRAGMA quick_check` found wrong with the ledger file when the board opened (empty: nothing, or not checked yet). */
	readonly integrityProblems: readonly string[];
	/** The first break the board's check of the hash chain found, in one line (null: it holds, or not checked yet). */
	readonly chainBreak: string | null;
	readonly isLoaded: boolean;
	/** How many times a new entry came into Needs you since the board opened: each one rings the bell. */
	readonly bells: number;
	/** Work orders and their effects, as the feed last read them (docs/effects.md). */
	readonly orders: OrdersSnapshot;
	/** The cursor in HELD EFFECTS (an index into its held effects). */
	readonly effectIndex: number;
	/** Held effects marked with space, by `heldKey`. */
	readonly marked: ReadonlySet<string>;
	/** The held effects an approval confirmation lists. */
	readonly approval: readonly HeldEffectRef[] | null;
	/**
	 * How far the confirmation is scrolled, and the farthest it has been: `y` runs only once every
	 * line of every call has been on the screen (src/core/board/approval-view.ts).
	 */
	readonly approvalScroll: number;
	readonly approvalSeen: number;
	/** The questions a person can answer, oldest first, as the feed last read them (docs/decisions.md). */
	readonly decisions: readonly DecisionRecord[];
	/** The cursor in the Decisions panel. */
	readonly decisionIndex: number;
	/**
	 * A question shown whole: the drill-in (mode `question`) or, with `isConfirm`, the allow
	 * confirmation; `seen` is the farthest it has been scrolled, since `y` waits until every line was shown.
	 */
	readonly question: {
		readonly id: string;
		readonly scroll: number;
		readonly seen: number;
		readonly isConfirm: boolean;
		readonly returnMode: BoardMode;
	} | null;
	/** How far `?` help is scrolled, where it is taller than the screen (80×24). */
	readonly helpScroll: number;
	/** The measures as the feed last read them (docs/stats.md); null until read, or on a feed that reads none. */
	readonly stats: Stats | null;
	/** The stats panel is shown (its key toggles it). */
	readonly isStatsShown: boolean;
};

/** Where a jump goes. */
export type Edge = 'first' | 'last';

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
			readonly verdicts?: readonly VerdictRecord[];
			readonly contracts?: readonly BoardContract[];
			readonly lastSeq: number;
			readonly isFull: boolean;
			readonly timelineEvents?: readonly LedgerEvent[];
			readonly orders?: OrdersSnapshot;
			readonly ledgerChange?: LedgerFileAlert;
			readonly dropped?: number;
			readonly decisions?: readonly DecisionRecord[];
			readonly stats?: Stats;
	  }
	| {readonly type: 'move'; readonly delta: number; readonly order: readonly string[]}
	| {readonly type: 'move-to'; readonly edge: Edge; readonly order: readonly string[]}
	| {readonly type: 'scroll'; readonly delta: number; readonly max: number}
	| {readonly type: 'scroll-to'; readonly edge: Edge; readonly max: number}
	| {readonly type: 'select'; readonly taskId: string | null; readonly index: number}
	| {readonly type: 'toggle-focus'}
	/** `d`: the focus to Decisions, closing the view it was pressed in. */
	| {readonly type: 'focus-decisions'}
	/** Opens or folds a task's helpers; `select` moves the cursor (a fold from a helper lands on its parent). */
	| {readonly type: 'set-tree'; readonly taskId: string; readonly isOpen: boolean; readonly select?: string}
	| {readonly type: 'open-timeline'; readonly taskId: string; readonly events: readonly LedgerEvent[]}
	| {readonly type: 'open-log'; readonly taskId: string}
	| {readonly type: 'log-read'; readonly taskId: string; readonly log: TaskLog}
	| {readonly type: 'back'}
	| {readonly type: 'toggle-help'}
	| {readonly type: 'ask-stop'; readonly taskId: string}
	| {readonly type: 'cycle-sort'}
	| {readonly type: 'toggle-stats'}
	/** A reason prompt is about a task (send it back) or, in Held effects, an order (send its effects back). */
	| {
			readonly type: 'start-prompt';
			readonly kind: PromptKind;
			readonly taskId?: string;
			readonly orderId?: string;
			readonly decisionId?: string;
	  }
	| {readonly type: 'prompt-edit'; readonly edit: {readonly kind: 'type'; readonly text: string} | {readonly kind: 'erase'}}
	| {readonly type: 'toggle-mark'; readonly ref: HeldEffectRef}
	| {readonly type: 'ask-approve'; readonly refs: readonly HeldEffectRef[]}
	/** Enter on a question: it shows whole. */
	| {readonly type: 'open-question'; readonly id: string}
	/** `a` on a question: the allow confirmation lists it whole before `y`. */
	| {readonly type: 'ask-allow'; readonly id: string}
	/** The question was answered from its drill-in: back to where it was opened from. */
	| {readonly type: 'close-question'}
	| {readonly type: 'prompt-input'; readonly text: string}
	| {readonly type: 'prompt-commit'}
	| {readonly type: 'send-back-taken'}
	| {readonly type: 'answer-taken'}
	| {readonly type: 'notify'; readonly notice: Notice | null}
	/** The background `PRAGMA quick_check` of the ledger answered. */
	| {readonly type: 'integrity-checked'; readonly problems: readonly string[]}
	/** The board's own check of the hash chain found a break (docs/ledger.md, "verify"). */
	| {readonly type: 'chain-broken'; readonly found: string};

/** The board before the first read. */
export function initialBoardState(): BoardState {
	return {
		tasks: new Map(),
		queue: {lanes: [], total: 0},
		verdicts: [],
		contracts: [],
		lastSeq: 0,
		mode: 'list',
		previousMode: 'list',
		selectedId: null,
		selectedIndex: 0,
		queueIndex: 0,
		filter: '',
		sort: 'newest',
		prompt: null,
		confirmTaskId: null,
		promptTaskId: null,
		pendingSendBack: null,
		pendingAnswer: null,
		timeline: null,
		log: null,
		notice: null,
		ledgerAlert: null,
		dropped: 0,
		integrityProblems: [],
		chainBreak: null,
		isLoaded: false,
		bells: 0,
		orders: {records: [], deadApprovers: []},
		effectIndex: 0,
		marked: new Set(),
		approval: null,
		approvalScroll: 0,
		approvalSeen: 0,
		decisions: [],
		decisionIndex: 0,
		question: null,
		helpScroll: 0,
		stats: null,
		isStatsShown: false,
	};
}

/** Whether `next` holds an entry `previous` did not: a new signal, or a lane that grew beyond what it shows. */
export function hasNewQueueEntry(previous: HumanQueue, next: HumanQueue): boolean {
	const seen = new Set(previous.lanes.flatMap(lane => lane.items.map(item => `${item.taskId}@${item.at}`)));
	const totals = new Map(previous.lanes.map(lane => [lane.name, lane.total]));
	return next.lanes.some(
		lane => lane.total > (totals.get(lane.name) ?? 0) || lane.items.some(item => !seen.has(`${item.taskId}@${item.at}`)),
	);
}

function readLedger(state: BoardState, action: Extract<BoardAction, {type: 'ledger-read'}>): BoardState {
	const tasks = action.isFull ? new Map<string, BoardTask>() : new Map(state.tasks);
	for (const task of action.tasks) tasks.set(taskKey(task), task);
	const pending = action.pending ? pendingByKey(action.pending) : state.pending;
	const timeline = state.timeline && action.timelineEvents ? {...state.timeline, events: action.timelineEvents} : state.timeline;
	const queueCount = action.queue.lanes.reduce((sum, lane) => sum + lane.items.length, 0);
	// What was in Needs you when the board opened rang no bell: only what arrives while it is open.
	const isNewNeed = state.isLoaded && hasNewQueueEntry(state.queue, action.queue);
	return {
		...state,
		tasks,
		...(pending ? {pending} : {}),
		queue: action.queue,
		verdicts: action.verdicts ?? state.verdicts,
		contracts: action.contracts ?? state.contracts,
		// A full read may be of a new file (the old one was deleted): its sequence starts again.
		lastSeq: action.isFull ? action.lastSeq : Math.max(state.lastSeq, action.lastSeq),
		ledgerAlert: action.ledgerChange ?? state.ledgerAlert,
		dropped: action.dropped ?? state.dropped,
		timeline,
		queueIndex: Math.min(state.queueIndex, Math.max(0, queueCount - 1)),
		...(action.notice ? {notice: action.notice} : {}),
		isLoaded: true,
		bells: isNewNeed ? state.bells + 1 : state.bells,
		orders: action.orders ?? state.orders,
		stats: action.stats ?? state.stats,
		...(action.decisions ? readDecisions(state, action.decisions) : {}),
	};
}

/** New questions from the feed: the cursor stays on its question, and the panel loses the focus once none is left. */
function readDecisions(state: BoardState, decisions: readonly DecisionRecord[]): Partial<BoardState> {
	const selected = state.decisions[state.decisionIndex]?.id;
	const at = selected === undefined ? -1 : decisions.findIndex(decision => decision.id === selected);
	const decisionIndex = at >= 0 ? at : Math.max(0, Math.min(state.decisionIndex, decisions.length - 1));
	return {decisions, decisionIndex, ...(state.mode === 'decisions' && decisions.length === 0 ? {mode: 'list'} : {})};
}

function pendingByKey(actions: readonly PendingAction[]): Map<string, string[]> {
	const byKey = new Map<string, string[]>();
	for (const {key, verb} of actions) byKey.set(key, [...(byKey.get(key) ?? []), verb]);
	return byKey;
}

function clamp(index: number, length: number): number {
	return Math.max(0, Math.min(length - 1, index));
}

/** Moves the cursor of the lanes, Needs you or Held effects through `order` by `delta` rows. */
function move(state: BoardState, delta: number, order: readonly string[]): BoardState {
	if (state.mode === 'queue') return {...state, queueIndex: clamp(state.queueIndex + delta, order.length)};
	if (state.mode === 'effects') return {...state, effectIndex: Math.max(0, clamp(state.effectIndex + delta, order.length))};
	if (state.mode === 'decisions') return {...state, decisionIndex: Math.max(0, clamp(state.decisionIndex + delta, order.length))};
	if (order.length === 0) return {...state, selectedId: null, selectedIndex: 0};
	const at = state.selectedId === null ? -1 : order.indexOf(state.selectedId);
	// With no row (or a row no longer listed) selected, the screen shows the cursor at the remembered index.
	const index = at >= 0 ? at : clamp(state.selectedIndex, order.length);
	const next = clamp(index + delta, order.length);
	return {...state, selectedId: order[next] ?? null, selectedIndex: next};
}

/** Scrolls the open timeline (from its top), log (from its newest line) or approval confirmation by `delta` lines down. */
function scroll(state: BoardState, delta: number, max: number): BoardState {
	const bound = (value: number) => Math.max(0, Math.min(max, value));
	if (state.mode === 'log' && state.log) return {...state, log: {...state.log, fromEnd: bound(state.log.fromEnd - delta)}};
	if (state.mode === 'timeline' && state.timeline) {
		return {...state, timeline: {...state.timeline, scroll: bound(state.timeline.scroll + delta)}};
	}
	if (state.mode === 'help') return {...state, helpScroll: bound(state.helpScroll + delta)};
	if (state.mode === 'confirm' && state.approval) {
		const approvalScroll = bound(state.approvalScroll + delta);
		return {...state, approvalScroll, approvalSeen: Math.max(state.approvalSeen, approvalScroll)};
	}
	if ((state.mode === 'question' || state.mode === 'confirm') && state.question) {
		const at = bound(state.question.scroll + delta);
		return {...state, question: {...state.question, scroll: at, seen: Math.max(state.question.seen, at)}};
	}
	return state;
}

function back(state: BoardState): BoardState {
	switch (state.mode) {
		case 'timeline':
			return {...state, mode: state.timeline?.returnMode ?? 'list', timeline: null};
		case 'log':
			return {...state, mode: state.log?.returnMode ?? 'list', log: null};
		case 'help':
			return {...state, mode: state.previousMode, confirmTaskId: null, approval: null};
		case 'confirm':
			return {
				...state,
				mode: state.previousMode,
				confirmTaskId: null,
				approval: null,
				// Cancelled from the drill-in, the question is shown whole again; from a list, it closes.
				question: state.previousMode === 'question' && state.question ? {...state.question, isConfirm: false} : null,
			};
		case 'question':
			return {...state, mode: state.question?.returnMode ?? 'decisions', question: null};
		case 'decisions':
			return {...state, mode: 'list'};
		case 'input':
			// Esc on a filter clears it, as in k9s; on any other prompt it drops what was typed.
			return {
				...state,
				mode: state.previousMode,
				filter: state.prompt?.kind === 'filter' ? '' : state.filter,
				prompt: null,
				promptTaskId: null,
			};
		case 'queue':
		case 'effects':
			return {...state, mode: 'list'};
		case 'list':
			return state.filter === '' ? state : {...state, filter: ''};
		default:
			return assertNever(state.mode);
	}
}

function editPrompt(state: BoardState, text: string): BoardState {
	if (!state.prompt) return state;
	return {...state, prompt: {...state.prompt, text}, filter: state.prompt.kind === 'filter' ? text : state.filter};
}

/** The one mode a view returns to: the lanes, Needs you or Held effects, never an overlay. */
function returnModeOf(state: BoardState): BoardMode {
	if (state.mode === 'timeline') return state.timeline?.returnMode ?? 'list';
	if (state.mode === 'question') return state.question?.returnMode ?? 'decisions';
	return state.mode === 'queue' || state.mode === 'effects' || state.mode === 'decisions' ? state.mode : 'list';
}

/**
 * Enter in a prompt: a filter applies; a reason becomes a pending send-back (carried out by the
 * board), or, when empty, a notice that nothing was sent; an answer to a question (a reason, a
 * headroom) becomes a pending answer, checked and carried out by the board.
 */
function commitPrompt(state: BoardState): BoardState {
	const {prompt, promptTaskId} = state;
	if (!prompt) return state;
	const closed = {...state, mode: state.previousMode, prompt: null, promptTaskId: null};
	if (prompt.kind === 'filter') return {...closed, filter: prompt.text.trim()};
	if (prompt.decisionId !== undefined) {
		// Answered from its drill-in, the question closes: the panel shows whether it still waits.
		const fromQuestion = state.previousMode === 'question' && state.question;
		return {
			...closed,
			...(fromQuestion ? {mode: fromQuestion.returnMode, question: null} : {}),
			pendingAnswer: {decisionId: prompt.decisionId, kind: prompt.kind, text: prompt.text},
		};
	}
	const reason = prompt.text.trim();
	if (promptTaskId === null) return closed;
	if (reason === '') {
		return {...closed, notice: {tone: 'warn', text: `x: a reason is required; ${promptTaskId} was not sent back`}};
	}
	return {...closed, pendingSendBack: {taskId: promptTaskId, reason}};
}

/** Each action's transition; the mapped type makes a missing action a type error, as an exhaustive switch would. */
type Transitions = {
	readonly [Type in BoardAction['type']]: (state: BoardState, action: Extract<BoardAction, {type: Type}>) => BoardState;
};

/** The lanes' slice: the cursor, trees, sort, and what the ledger read brings. */
const LANES_TRANSITIONS = {
	'ledger-read': (state, action) => readLedger(state, action),
	move: (state, action) => move(state, action.delta, action.order),
	'move-to': (state, action) => move(state, action.edge === 'first' ? -action.order.length : action.order.length, action.order),
	select: (state, action) => ({...state, selectedId: action.taskId, selectedIndex: Math.max(0, action.index)}),
	'set-tree': (state, action) => {
		const open = new Set(state.openTrees ?? []);
		if (action.isOpen) open.add(action.taskId);
		else open.delete(action.taskId);
		return {...state, openTrees: open, ...(action.select === undefined ? {} : {selectedId: action.select})};
	},
	// Tab goes round the panels that take a cursor: lanes, Needs you, Held effects, and Decisions while a question is open.
	'toggle-focus': state => ({
		...state,
		mode:
			state.mode === 'list'
				? 'queue'
				: state.mode === 'queue'
					? 'effects'
					: state.mode === 'effects' && state.decisions.length > 0
						? 'decisions'
						: 'list',
	}),
	// d: whatever view it was pressed in closes; Esc from Decisions goes back to the lanes.
	'focus-decisions': state => ({...state, mode: 'decisions', timeline: null, log: null, question: null, notice: null}),
	'cycle-sort': state => ({...state, sort: nextSortOrder(state.sort)}),
	'toggle-stats': state => ({...state, isStatsShown: !state.isStatsShown}),
	'ask-stop': (state, action) => ({
		...state,
		mode: 'confirm',
		previousMode: state.mode,
		confirmTaskId: action.taskId,
		notice: null,
	}),
} satisfies Partial<Transitions>;

/** The timeline's and the log's slices: opened over the lanes, scrolled, read live. */
const VIEW_TRANSITIONS = {
	scroll: (state, action) => scroll(state, action.delta, action.max),
	'scroll-to': (state, action) =>
		scroll(state, action.edge === 'first' ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER, action.max),
	'open-timeline': (state, action) => ({
		...state,
		mode: 'timeline',
		// Opened from Needs you or Held effects, the lane cursor stays where it was.
		selectedId: state.mode === 'queue' || state.mode === 'effects' ? state.selectedId : action.taskId,
		timeline: {taskId: action.taskId, events: action.events, scroll: 0, returnMode: returnModeOf(state)},
		notice: null,
		question: null,
	}),
	'open-log': (state, action) => ({
		...state,
		mode: 'log',
		log: {
			taskId: action.taskId,
			view: null,
			fromEnd: 0,
			returnMode: state.mode === 'timeline' ? 'timeline' : returnModeOf(state),
		},
		notice: null,
	}),
	'log-read': (state, action) =>
		state.log?.taskId !== action.taskId ? state : {...state, log: {...state.log, view: action.log}},
	back: state => back(state),
	'toggle-help': state =>
		state.mode === 'help' ? back(state) : {...state, mode: 'help', previousMode: state.mode, helpScroll: 0},
} satisfies Partial<Transitions>;

/** The prompt's slice: the filter, a send-back's or a deny's reason, a headroom. */
const PROMPT_TRANSITIONS = {
	'start-prompt': (state, action) => ({
		...state,
		mode: 'input',
		previousMode: state.mode,
		prompt: {
			kind: action.kind,
			text: action.kind === 'filter' ? state.filter : '',
			...(action.orderId === undefined ? {} : {orderId: action.orderId}),
			...(action.decisionId === undefined ? {} : {decisionId: action.decisionId}),
		},
		promptTaskId: action.taskId ?? null,
		notice: null,
	}),
	'prompt-edit': (state, action) =>
		state.prompt
			? editPrompt(
					state,
					action.edit.kind === 'erase' ? [...state.prompt.text].slice(0, -1).join('') : state.prompt.text + action.edit.text,
				)
			: state,
	'prompt-input': (state, action) => editPrompt(state, action.text),
	'prompt-commit': state => commitPrompt(state),
	'send-back-taken': state => ({...state, pendingSendBack: null}),
	'answer-taken': state => ({...state, pendingAnswer: null}),
	notify: (state, action) => ({...state, notice: action.notice}),
	'integrity-checked': (state, action) => ({...state, integrityProblems: action.problems}),
	'chain-broken': (state, action) => ({...state, chainBreak: action.found}),
} satisfies Partial<Transitions>;

/** Held effects' and the approval's slices: marks, and the approval waiting for y. */
const EFFECTS_TRANSITIONS = {
	'toggle-mark': (state, action) => {
		const key = heldKey(action.ref);
		const marked = new Set(state.marked);
		if (marked.has(key)) marked.delete(key);
		else marked.add(key);
		return {...state, marked};
	},
	'ask-approve': (state, action) => ({
		...state,
		mode: 'confirm',
		previousMode: state.mode,
		approval: action.refs,
		approvalScroll: 0,
		approvalSeen: 0,
		confirmTaskId: null,
		notice: null,
	}),
} satisfies Partial<Transitions>;

/** The question's slice: a question drawn whole, and the allow it waits on. */
const QUESTION_TRANSITIONS = {
	'open-question': (state, action) => ({
		...state,
		mode: 'question',
		question: {id: action.id, scroll: 0, seen: 0, isConfirm: false, returnMode: returnModeOf(state)},
		notice: null,
	}),
	'ask-allow': (state, action) => {
		// From its drill-in, what was already scrolled past counts as shown.
		const shown = state.mode === 'question' && state.question?.id === action.id ? state.question : null;
		return {
			...state,
			mode: 'confirm',
			previousMode: state.mode,
			question: {
				id: action.id,
				scroll: shown?.scroll ?? 0,
				seen: shown?.seen ?? 0,
				isConfirm: true,
				returnMode: shown?.returnMode ?? returnModeOf(state),
			},
			approval: null,
			confirmTaskId: null,
			notice: null,
		};
	},
	'close-question': state => (state.question ? {...state, mode: state.question.returnMode, question: null} : state),
} satisfies Partial<Transitions>;

const TRANSITIONS: Transitions = {
	...LANES_TRANSITIONS,
	...VIEW_TRANSITIONS,
	...PROMPT_TRANSITIONS,
	...EFFECTS_TRANSITIONS,
	...QUESTION_TRANSITIONS,
};

/** The board's one reducer: pure, so every transition is tested without Ink. */
export function reduceBoard(state: BoardState, action: BoardAction): BoardState {
	const transition = TRANSITIONS[action.type] as (state: BoardState, action: BoardAction) => BoardState;
	return transition(state, action);
}
