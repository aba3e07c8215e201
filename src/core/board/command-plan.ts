import {assertNever} from '../assert-never.ts';
import {callStartedNotice, type BoardCall} from './command-calls.ts';
import {defaultHeadroom, parseHeadroom} from './decisions-view.ts';
import {heldKey, type HeldEffectRef} from './effects-view.ts';
import {labelOf} from './key-labels.ts';
import {BoardCommand, keyWordOf, keyWordsOf, type KeyBinding, type KeyWords} from './keymap.ts';
import {sendBackBlockedReason} from './reviews-view.ts';
import type {ScreenView} from './screen.ts';
import {stopBlockedReason} from './selectors.ts';
import type {BoardAction, BoardState, Notice} from './state.ts';

/** The exit status of `q`, and of Ctrl-C (128 + SIGINT, as a shell reports an interrupted program). */
export const QUIT_STATUS = 0;
export const INTERRUPT_STATUS = 130;

/** Which of the board's writes are wired: a test or a board without them leaves some out. */
export type BoardAbilities = {
	readonly canStop: boolean;
	/** Why stop is not wired, said when `s` is pressed. */
	readonly stopUnavailable?: string;
	readonly canSendBack: boolean;
	readonly canApprove: boolean;
	readonly canSendBackOrder: boolean;
	/** Answering the agents' questions (docs/decisions.md). */
	readonly canDecide?: boolean;
	/** Jumping to an agent's tmux pane (docs/tmux.md). */
	readonly canJump?: boolean;
	/** A board for a shared screen (`board --read-only`): every action key is refused, saying so. */
	readonly isReadOnly?: boolean;
};

/** The one step of a command outside the reducer. */
export type BoardEffect =
	| {readonly kind: 'exit'; readonly status: number}
	/** Opens the task's (or order's) timeline with its events, read from the feed. */
	| {readonly kind: 'open-timeline'; readonly taskId: string}
	| {readonly kind: 'call'; readonly call: BoardCall};

/**
 * What a key comes to: reducer actions to dispatch in order, then at most one effect; or a
 * refusal, shown as a warning once the actions before it (Enter closes its prompt) are dispatched.
 */
export type BoardPlan =
	| {readonly kind: 'act'; readonly actions: readonly BoardAction[]; readonly effect?: BoardEffect}
	| {readonly kind: 'refuse'; readonly actions: readonly BoardAction[]; readonly message: string};

const act = (actions: readonly BoardAction[], effect?: BoardEffect): BoardPlan =>
	effect ? {kind: 'act', actions, effect} : {kind: 'act', actions};
const refuse = (message: string, actions: readonly BoardAction[] = []): BoardPlan => ({kind: 'refuse', actions, message});
const notify = (notice: Notice): BoardAction => ({type: 'notify', notice});

/** A call, after `actions` and the line that says it is under way. */
function callAfter(actions: readonly BoardAction[], call: BoardCall): BoardPlan {
	const started = callStartedNotice(call);
	return act(started ? [...actions, notify(started)] : actions, {kind: 'call', call});
}

/** The task a command is about: the one open, the Needs you entry under the cursor, or the selected row. */
export function commandTarget(state: BoardState, screen: ScreenView): string | null {
	switch (state.mode) {
		case 'timeline':
			return state.timeline?.taskId ?? null;
		case 'log':
			return state.log?.taskId ?? null;
		case 'queue':
			return screen.queueOrder[state.queueIndex]?.taskId ?? null;
		case 'decisions':
		case 'question':
			return questionOf(state, screen)?.taskId ?? null;
		case 'list':
		case 'effects':
		case 'help':
		case 'confirm':
		case 'input':
			return screen.selectedId;
		default:
			return assertNever(state.mode);
	}
}

/** The held effect under the cursor in Held effects. */
const heldUnderCursor = (state: BoardState, screen: ScreenView): HeldEffectRef | undefined =>
	state.mode === 'effects' ? screen.effectOrder[state.effectIndex] : undefined;

/**
 * The question under the cursor (docs/decisions.md): a Decisions entry of Needs you, the
 * Decisions panel's cursor, or the question shown whole.
 */
function decisionUnderCursor(state: BoardState, screen: ScreenView): string | null {
	if (state.mode === 'decisions') return screen.decisionOrder[state.decisionIndex] ?? null;
	if (state.mode === 'question') return state.question?.id ?? null;
	if (state.mode !== 'queue') return null;
	const entry = screen.queueOrder[state.queueIndex];
	return entry?.lane === 'decisions' ? entry.taskId : null;
}

/** The record of the question under the cursor, while a person can still answer it. */
function questionOf(state: BoardState, screen: ScreenView) {
	const id = decisionUnderCursor(state, screen);
	return id === null ? undefined : state.decisions.find(decision => decision.id === id);
}

/**
 * `a` on a question: nobody allows what they were not shown, so the call is shown whole first and
 * `y` allows it; a budget question asks how many tokens to add instead (its call still meets the
 * hold policy after).
 */
function allowQuestion(state: BoardState, id: string, abilities: BoardAbilities, w: KeyWords): BoardPlan {
	if (!abilities.canDecide) return refuse(`${w[BoardCommand.approve]}: answering questions is not available here`);
	const decision = state.decisions.find(candidate => candidate.id === id);
	if (!decision)
		return refuse(`${w[BoardCommand.approve]}: ${id} no longer waits for an answer (answered, withdrawn, or its hook is gone)`);
	if (decision.kind === 'budget') return act([{type: 'start-prompt', kind: 'headroom', decisionId: id}]);
	return act([{type: 'ask-allow', id}]);
}

/** `a`: the marked held effects, else every held one, to confirm. */
function approvalTargets(state: BoardState, screen: ScreenView): HeldEffectRef[] {
	const marked = screen.effectOrder.filter(ref => state.marked.has(heldKey(ref)));
	return marked.length > 0 ? marked : [...screen.effectOrder];
}

/** j/k, PgUp/PgDn: a timeline or log scrolls; elsewhere the cursor moves through what the view lists. */
/** The modes whose j/k scroll what is shown instead of moving a cursor. */
const SCROLLED: ReadonlySet<BoardState['mode']> = new Set(['timeline', 'log', 'confirm', 'question', 'help']);

function step(state: BoardState, screen: ScreenView, delta: number): BoardAction {
	if (SCROLLED.has(state.mode)) return {type: 'scroll', delta, max: screen.scrollMax};
	return {type: 'move', delta, order: cursorOrder(state, screen)};
}

function jump(state: BoardState, screen: ScreenView, edge: 'first' | 'last'): BoardAction {
	if (SCROLLED.has(state.mode)) return {type: 'scroll-to', edge, max: screen.scrollMax};
	return {type: 'move-to', edge, order: cursorOrder(state, screen)};
}

function cursorOrder(state: BoardState, screen: ScreenView): readonly string[] {
	if (state.mode === 'queue') return screen.queueOrder.map(item => item.taskId);
	if (state.mode === 'effects') return screen.effectOrder.map(ref => ref.id);
	if (state.mode === 'decisions') return screen.decisionOrder;
	return screen.order;
}

/** Esc or n: what was cancelled is said, so nobody wonders whether it ran. */
function cancel(state: BoardState, w: KeyWords): BoardPlan {
	const said: BoardAction[] = [];
	if (state.mode === 'confirm') {
		const what = state.approval
			? 'approval cancelled: nothing ran'
			: state.question?.isConfirm
				? `${w[BoardCommand.approve]}: cancelled; ${state.question.id} still waits, nothing was allowed`
				: 'stop cancelled';
		said.push(notify({tone: 'info', text: what}));
	}
	if (state.mode === 'input' && state.prompt?.decisionId !== undefined) {
		const nothing =
			state.prompt.kind === 'headroom'
				? `${w[BoardCommand.approve]}: cancelled; %s still waits, nothing was allowed`
				: `${w[BoardCommand.sendBack]}: cancelled; %s still waits, nothing was denied`;
		said.push(notify({tone: 'info', text: nothing.replace('%s', state.prompt.decisionId)}));
	}
	if (state.mode === 'input' && state.promptTaskId !== null) {
		said.push(notify({tone: 'info', text: `${w[BoardCommand.sendBack]}: cancelled; ${state.promptTaskId} was not sent back`}));
	}
	return act([...said, {type: 'back'}]);
}

function open(state: BoardState, screen: ScreenView): BoardPlan {
	if (state.mode === 'effects') {
		const held = heldUnderCursor(state, screen);
		return held ? act([], {kind: 'open-timeline', taskId: held.orderId}) : refuse('no held effect selected');
	}
	// A question shows whole (docs/decisions.md); Enter again opens its task's timeline.
	const decisionId = state.mode === 'question' ? null : decisionUnderCursor(state, screen);
	if (decisionId !== null) return act([{type: 'open-question', id: decisionId}]);
	const taskId = commandTarget(state, screen);
	return taskId === null ? refuse('no task selected') : act([], {kind: 'open-timeline', taskId});
}

function stop(state: BoardState, screen: ScreenView, abilities: BoardAbilities): BoardPlan {
	const w = screen.keys;
	const taskId = commandTarget(state, screen);
	if (taskId === null) return refuse('no task selected');
	// Checked on the task as it is now, in every view: an ended or lost task is refused at once, never asked about.
	const task = state.tasks.get(taskId);
	const blocked = task ? stopBlockedReason(task) : 'it is not on the board';
	if (blocked) return refuse(`${w[BoardCommand.stop]}: cannot stop ${taskId}: ${blocked}`);
	if (!abilities.canStop) return refuse(`${w[BoardCommand.stop]}: ${abilities.stopUnavailable ?? 'stop is not available'}`);
	return act([{type: 'ask-stop', taskId}]);
}

/** t: to the agent's tmux pane; a task no hook or wrapper saw in tmux is refused at once (docs/tmux.md). */
function jumpToPane(state: BoardState, screen: ScreenView, abilities: BoardAbilities): BoardPlan {
	const w = screen.keys;
	const taskId = commandTarget(state, screen);
	if (taskId === null) return refuse(`${w[BoardCommand.jump]}: no task selected`);
	const task = state.tasks.get(taskId);
	if (task && !task.tmux)
		return refuse(`${w[BoardCommand.jump]}: ${taskId} does not run in tmux: its hooks and wrapper saw no TMUX`);
	if (!abilities.canJump)
		return refuse(
			`${w[BoardCommand.jump]}: jump from the task's own host (\`controlroom jump ${taskId}\`): a fleet board's panes may be elsewhere`,
		);
	return callAfter([], {kind: 'jump', taskId});
}

/** y: runs what the question was about (an approval, or a stop). */
function confirm(state: BoardState, screen: ScreenView, abilities: BoardAbilities): BoardPlan {
	const w = screen.keys;
	const closed: BoardAction[] = [{type: 'back'}];
	if (state.question?.isConfirm) {
		const {id, seen} = state.question;
		if (!abilities.canDecide) return refuse(`${w[BoardCommand.approve]}: answering questions is not available here`, closed);
		if (!state.decisions.some(decision => decision.id === id)) {
			return refuse(
				`${w[BoardCommand.approve]}: ${id} no longer waits for an answer (answered, withdrawn, or its hook is gone); nothing was allowed`,
				[...closed, {type: 'close-question'}],
			);
		}
		const unseen = screen.question ? screen.question.scrollMax - seen : 0;
		if (unseen > 0)
			return refuse(
				`${w[BoardCommand.confirm]}: not yet: ${unseen} more line${unseen === 1 ? '' : 's'} of the call to read first (${w[BoardCommand.down]} or ${w[BoardCommand.pageDown]})`,
			);
		return callAfter([...closed, {type: 'close-question'}], {kind: 'decide', decisionId: id, answer: 'allow', reason: null});
	}
	if (state.approval) {
		if (!abilities.canApprove) return refuse(`${w[BoardCommand.approve]}: approving is not available here`, closed);
		// Nobody approves what they were not shown: the whole of every call first.
		const unseen = screen.approval ? screen.approval.scrollMax - state.approvalSeen : 0;
		if (unseen > 0)
			return refuse(
				`${w[BoardCommand.confirm]}: not yet: ${unseen} more line${unseen === 1 ? '' : 's'} of the calls to read first (${w[BoardCommand.down]} or ${w[BoardCommand.pageDown]})`,
			);
		return callAfter(closed, {kind: 'approve', refs: state.approval});
	}
	const taskId = state.confirmTaskId;
	if (taskId === null || !abilities.canStop) return act(closed);
	// The cursor stays on the task it stopped while the task moves to RECENTLY ENDED.
	if (state.previousMode === 'list') closed.push({type: 'select', taskId, index: screen.selectedIndex});
	return callAfter(closed, {kind: 'stop', taskId});
}

/** x: in Held effects, the order under the cursor; elsewhere the selected task, once it waits for a person. */
function sendBack(state: BoardState, screen: ScreenView, abilities: BoardAbilities): BoardPlan {
	const w = screen.keys;
	const decisionId = decisionUnderCursor(state, screen);
	if (decisionId !== null) {
		if (!abilities.canDecide) return refuse(`${w[BoardCommand.sendBack]}: answering questions is not available here`);
		if (!state.decisions.some(decision => decision.id === decisionId) && state.mode !== 'queue') {
			return refuse(
				`${w[BoardCommand.sendBack]}: ${decisionId} no longer waits for an answer (answered, withdrawn, or its hook is gone)`,
			);
		}
		return act([{type: 'start-prompt', kind: 'reason', decisionId}]);
	}
	if (state.mode === 'decisions' || state.mode === 'question')
		return refuse(`${w[BoardCommand.sendBack]}: no question under the cursor`);
	if (state.mode === 'effects') {
		const held = heldUnderCursor(state, screen);
		if (!held) return refuse(`${w[BoardCommand.sendBack]}: no held order under the cursor`);
		return act([{type: 'start-prompt', kind: 'reason', orderId: held.orderId}]);
	}
	const taskId = commandTarget(state, screen);
	if (taskId === null) return refuse(`${w[BoardCommand.sendBack]}: no task selected`);
	const blocked = sendBackBlockedReason(state.tasks.get(taskId) ?? {id: taskId, status: 'done'}, state.queue);
	if (blocked) return refuse(`${w[BoardCommand.sendBack]}: ${blocked}`);
	if (!abilities.canSendBack) return refuse(`${w[BoardCommand.sendBack]}: send back is not available here`);
	return act([{type: 'start-prompt', kind: 'reason', taskId}]);
}

/**
 * Enter in a prompt: a filter applies, a task's reason becomes the reducer's pending send-back;
 * a reason with an order sends that order's held effects back.
 */
export function planSubmit(state: BoardState, abilities: BoardAbilities, w: KeyWords = keyWordsOf()): BoardPlan {
	const prompt = state.prompt;
	const committed: BoardAction[] = [{type: 'prompt-commit'}];
	// An answer to a question is checked once the reducer holds the whole text (planPendingAnswer).
	if (prompt?.decisionId !== undefined) return act(committed);
	if (prompt?.kind !== 'reason' || prompt.orderId === undefined) return act(committed);
	const reason = prompt.text.trim();
	if (reason === '')
		return refuse(
			`${w[BoardCommand.sendBack]}: not sent back: a reason is required (${prompt.orderId}'s worker reads it)`,
			committed,
		);
	if (!abilities.canSendBackOrder) return refuse(`${w[BoardCommand.sendBack]}: sending back is not available here`, committed);
	return callAfter(committed, {kind: 'send-back-order', orderId: prompt.orderId, reason});
}

/**
 * The answer the prompt committed (held by the reducer), taken once, checked and carried out: a
 * deny needs its reason (what the agent reads next); a budget's headroom is tokens, the default
 * when none were typed.
 */
export function planPendingAnswer(
	state: Pick<BoardState, 'pendingAnswer' | 'decisions'>,
	abilities: BoardAbilities,
	w: KeyWords = keyWordsOf(),
): BoardPlan | null {
	const pending = state.pendingAnswer;
	if (pending === null) return null;
	const taken: BoardAction[] = [{type: 'answer-taken'}];
	const {decisionId, kind, text} = pending;
	if (kind === 'reason') {
		const reason = text.trim();
		if (reason === '')
			return refuse(
				`${w[BoardCommand.sendBack]}: not denied: a reason is required (the agent reads it); ${decisionId} still waits`,
				taken,
			);
		if (!abilities.canDecide) return refuse(`${w[BoardCommand.sendBack]}: answering questions is not available here`, taken);
		return callAfter(taken, {kind: 'decide', decisionId, answer: 'deny', reason});
	}
	const decision = state.decisions.find(candidate => candidate.id === decisionId);
	if (!decision)
		return refuse(`${w[BoardCommand.approve]}: ${decisionId} no longer waits for an answer; nothing was allowed`, taken);
	const headroom = parseHeadroom(text, defaultHeadroom(decision));
	if (!headroom.ok) return refuse(`${w[BoardCommand.approve]}: not allowed: ${headroom.why}; ${decisionId} still waits`, taken);
	if (!abilities.canDecide) return refuse(`${w[BoardCommand.approve]}: answering questions is not available here`, taken);
	return callAfter(taken, {kind: 'decide', decisionId, answer: 'allow', reason: null, headroom: headroom.tokens});
}

/** The send-back the reason prompt committed (held by the reducer), taken once and carried out. */
export function planPendingSendBack(
	state: Pick<BoardState, 'pendingSendBack'>,
	abilities: BoardAbilities,
	w: KeyWords = keyWordsOf(),
): BoardPlan | null {
	const pending = state.pendingSendBack;
	if (pending === null) return null;
	const taken: BoardAction[] = [{type: 'send-back-taken'}];
	if (!abilities.canSendBack) return refuse(`${w[BoardCommand.sendBack]}: send back is not available here`, taken);
	return callAfter(taken, {kind: 'send-back', taskId: pending.taskId, reason: pending.reason});
}

/**
 * → opens the selected task's helpers beneath it; ← folds them, or, on a helper, folds its parent's
 * and moves to the parent. A task with no helpers says so.
 */
function planTree(screen: ScreenView, isOpen: boolean): BoardPlan {
	const row = screen.lanes.lines.find(line => line.kind === 'row' && line.row.id === screen.selectedId);
	if (!row || row.kind !== 'row') return refuse('no task selected');
	const {tree} = row.row;
	if (isOpen) {
		if (!tree || tree.helpers === 0) return refuse(`${row.row.shownId} has no helpers`);
		return tree.isOpen ? act([]) : act([{type: 'set-tree', taskId: row.row.id, isOpen: true}]);
	}
	if (tree?.isOpen) return act([{type: 'set-tree', taskId: row.row.id, isOpen: false}]);
	if (tree?.parentKey) return act([{type: 'set-tree', taskId: tree.parentKey, isOpen: false, select: tree.parentKey}]);
	return act([]);
}

/** What a planner reads: the state, the screen the key was pressed on, the binding, what the board can do, and when. */
type PlanInput = {
	readonly state: BoardState;
	readonly screen: ScreenView;
	readonly binding: KeyBinding;
	readonly abilities: BoardAbilities;
	readonly now: number;
};

/** Moving: the cursor, a page, an end, the focus, a tree. */
const NAVIGATION_PLANS = {
	[BoardCommand.down]: ({state, screen}) => act([step(state, screen, 1)]),
	[BoardCommand.up]: ({state, screen}) => act([step(state, screen, -1)]),
	[BoardCommand.pageDown]: ({state, screen}) => act([step(state, screen, screen.pageSize)]),
	[BoardCommand.pageUp]: ({state, screen}) => act([step(state, screen, -screen.pageSize)]),
	[BoardCommand.top]: ({state, screen}) => act([jump(state, screen, 'first')]),
	[BoardCommand.bottom]: ({state, screen}) => act([jump(state, screen, 'last')]),
	[BoardCommand.focus]: () => act([{type: 'toggle-focus'}]),
	// d: to Decisions from wherever the person is reading (docs/decisions.md, "The board").
	[BoardCommand.decisions]: ({screen}) =>
		screen.decisionOrder.length === 0
			? refuse(`${screen.keys[BoardCommand.decisions]}: no question waits for an answer (Decisions shows while one does)`)
			: act([{type: 'focus-decisions'}]),
	[BoardCommand.openTree]: ({screen}) => planTree(screen, true),
	[BoardCommand.closeTree]: ({screen}) => planTree(screen, false),
} satisfies Partial<Record<BoardCommand, (input: PlanInput) => BoardPlan>>;

/** The views and the board itself: open, log, back, help, quit, filter, sort, a prompt. */
const VIEW_PLANS = {
	[BoardCommand.open]: ({state, screen}) => open(state, screen),
	[BoardCommand.log]: ({state, screen}) => {
		const taskId = commandTarget(state, screen);
		return taskId === null ? refuse('no task selected') : act([{type: 'open-log', taskId}]);
	},
	[BoardCommand.back]: ({state, screen}) => cancel(state, screen.keys),
	[BoardCommand.cancel]: ({state, screen}) => cancel(state, screen.keys),
	[BoardCommand.help]: () => act([{type: 'toggle-help'}]),
	[BoardCommand.quit]: () => act([], {kind: 'exit', status: QUIT_STATUS}),
	[BoardCommand.interrupt]: () => act([], {kind: 'exit', status: INTERRUPT_STATUS}),
	[BoardCommand.filter]: () => act([{type: 'start-prompt', kind: 'filter'}]),
	[BoardCommand.sort]: () => act([{type: 'cycle-sort'}]),
	[BoardCommand.stats]: () => act([{type: 'toggle-stats'}]),
	[BoardCommand.submit]: ({state, screen, abilities}) => planSubmit(state, abilities, screen.keys),
} satisfies Partial<Record<BoardCommand, (input: PlanInput) => BoardPlan>>;

/** Acting on a task, an entry of Needs you, a held effect or a question. */
const ACTION_PLANS = {
	[BoardCommand.stop]: ({state, screen, abilities}) => stop(state, screen, abilities),
	[BoardCommand.jump]: ({state, screen, abilities}) => jumpToPane(state, screen, abilities),
	[BoardCommand.confirm]: ({state, screen, abilities}) => confirm(state, screen, abilities),
	[BoardCommand.acknowledge]: ({state, screen, now}) => {
		const w = screen.keys;
		const entry = state.mode === 'queue' ? screen.queueOrder[state.queueIndex] : undefined;
		if (!entry) return refuse(`${w[BoardCommand.acknowledge]}: nothing in Needs you to acknowledge`);
		return callAfter([], {kind: 'acknowledge', taskId: entry.taskId, signalAt: entry.at, now});
	},
	[BoardCommand.sendBack]: ({state, screen, abilities}) => sendBack(state, screen, abilities),
	[BoardCommand.approve]: ({state, screen, abilities}) => {
		const w = screen.keys;
		const decisionId = decisionUnderCursor(state, screen);
		if (decisionId !== null) return allowQuestion(state, decisionId, abilities, w);
		if (state.mode === 'decisions' || state.mode === 'question')
			return refuse(`${w[BoardCommand.approve]}: no question under the cursor`);
		const refs = approvalTargets(state, screen);
		return refs.length === 0
			? refuse(`${w[BoardCommand.approve]}: no held effects to approve`)
			: act([{type: 'ask-approve', refs}]);
	},
	[BoardCommand.mark]: ({state, screen}) => {
		const w = screen.keys;
		const held = heldUnderCursor(state, screen);
		return held ? act([{type: 'toggle-mark', ref: held}]) : refuse(`${w[BoardCommand.mark]}: no held effect under the cursor`);
	},
} satisfies Partial<Record<BoardCommand, (input: PlanInput) => BoardPlan>>;

/** The stepping keys are a past board's own (board --at): its hook takes them before any plan (hooks/use-past-moment.ts). */
const stepsOnlyInThePast = ({binding}: PlanInput): BoardPlan =>
	refuse(`${keyWordOf(binding)}: steps through time on a board at a past moment (controlroom board --at TIME)`);
const MOMENT_PLANS = {
	[BoardCommand.eventBack]: stepsOnlyInThePast,
	[BoardCommand.eventForward]: stepsOnlyInThePast,
	[BoardCommand.minuteBack]: stepsOnlyInThePast,
	[BoardCommand.minuteForward]: stepsOnlyInThePast,
	[BoardCommand.toNow]: stepsOnlyInThePast,
} satisfies Partial<Record<BoardCommand, (input: PlanInput) => BoardPlan>>;

/** Every command's planner: the Record type makes a command without one a type error. */
const PLANS: Readonly<Record<BoardCommand, (input: PlanInput) => BoardPlan>> = {
	...NAVIGATION_PLANS,
	...VIEW_PLANS,
	...ACTION_PLANS,
	...MOMENT_PLANS,
};

/**
 * What a key from the table does now: to which target, or why it is refused. `now` is when the
 * key was pressed (an acknowledgement is recorded at it).
 */
export function planBoardCommand(
	state: BoardState,
	screen: ScreenView,
	binding: KeyBinding,
	abilities: BoardAbilities,
	now: number,
): BoardPlan {
	const key = labelOf(binding.keys);
	if (binding.notBuilt) return refuse(`${key}: ${binding.notBuilt}`);
	if (abilities.isReadOnly && binding.isAction)
		return refuse(`${key}: this board is read-only (--read-only): it shows everything and changes nothing`);
	return PLANS[binding.command]({state, screen, binding, abilities, now});
}
