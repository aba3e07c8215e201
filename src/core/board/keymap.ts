import {isCharacterKey, joinKeys, keysShown, labelOf} from './key-labels.ts';

/** What the board can be doing; each mode has its own keys (one input handler is live at a time). */
export const BOARD_MODES = [
	'list',
	'queue',
	'effects',
	'timeline',
	'log',
	'help',
	'confirm',
	'input',
	'decisions',
	'question',
] as const;
export type BoardMode = (typeof BOARD_MODES)[number];

/** Every board command, named once. */
export const BoardCommand = {
	down: 'nav.down',
	up: 'nav.up',
	pageDown: 'nav.page-down',
	pageUp: 'nav.page-up',
	top: 'nav.top',
	bottom: 'nav.bottom',
	focus: 'nav.focus',
	open: 'task.open',
	log: 'task.log',
	jump: 'task.jump',
	back: 'view.back',
	stop: 'task.stop',
	approve: 'effects.approve',
	mark: 'effects.mark',
	sendBack: 'work.send-back',
	acknowledge: 'queue.acknowledge',
	filter: 'view.filter',
	sort: 'view.sort',
	help: 'app.help',
	quit: 'app.quit',
	interrupt: 'app.interrupt',
	confirm: 'confirm.yes',
	cancel: 'confirm.no',
	submit: 'prompt.submit',
	openTree: 'tree.open',
	closeTree: 'tree.close',
	// A board at a past moment (board --at) only: steps through time (src/core/board/past-moment.ts).
	eventBack: 'moment.event-back',
	eventForward: 'moment.event-forward',
	minuteBack: 'moment.minute-back',
	minuteForward: 'moment.minute-forward',
	toNow: 'moment.now',
	decisions: 'view.decisions',
	stats: 'view.stats',
} as const;
export type BoardCommand = (typeof BoardCommand)[keyof typeof BoardCommand];

/** One row of the key table: the keys, where they work, and the words help and the help bar show. */
export type KeyBinding = {
	readonly command: BoardCommand;
	/**
	 * Key names: a character (`G` is shift+g), or one of up, down, right, left, pageup, pagedown, home, end,
	 * return, escape, space, tab, backspace, ctrl+<letter>.
	 */
	readonly keys: readonly string[];
	/** What `?` help says; a key shared with another binding gets one help line with both. */
	readonly description: string;
	readonly modes: readonly BoardMode[];
	/** Set when the feature behind the key is not built yet; the key then says so instead of acting. */
	readonly notBuilt?: string;
	/** Shown in the help bar (the rest only in `?` help). */
	readonly inBar: boolean;
	/**
	 * Changes something (the ledger, an agent, an answer): left out of a read-only board's help and
	 * bar, and refused there (`board --read-only`).
	 */
	readonly isAction?: boolean;
	/** The help bar's word for it, per mode where it differs; the description when absent. */
	readonly short?: string | Partial<Record<BoardMode, string>>;
	/** The help bar writes this command's keys with those of `barPair`'s before them (`j/k move`). */
	readonly barPair?: BoardCommand;
	/** `?` help writes it on the line of this command (a pair of keys, such as → and ←, is one line). */
	readonly helpWith?: BoardCommand;
	/** Bindings with the same group share one `?` help line (y/n), so help fits 80×24. */
	readonly helpGroup?: string;
	/** Only on a board at a past moment (`board --at`): the live board neither matches nor lists it (keyTableFor). */
	readonly isPastOnly?: boolean;
};

const BROWSE: readonly BoardMode[] = ['list', 'queue'];
const VIEWS: readonly BoardMode[] = ['list', 'queue', 'timeline', 'log'];
/** Where a past board steps through time: wherever the ledger is shown, not in a prompt, question or help. */
const STEPPING: readonly BoardMode[] = ['list', 'queue', 'effects', 'timeline', 'decisions'];
/** Where the cursor moves or the view scrolls: `?` help scrolls too, where it is taller than the screen. */
const SCROLLS: readonly BoardMode[] = [...VIEWS, 'help'];
const EVERYWHERE: readonly BoardMode[] = ['list', 'queue', 'effects', 'timeline', 'log', 'help', 'decisions', 'question'];

/**
 * The one key table: matching, `?` help, the help bar and docs/board.md come from it. Matching
 * takes the first binding for a key in the mode, so `k` in Needs you (acknowledge) sits above `k`
 * as move up. To add a key: one entry here, one case in planBoardCommand (command-plan.ts).
 */
export const KEY_TABLE: readonly KeyBinding[] = [
	{
		command: BoardCommand.down,
		keys: ['down', 'j'],
		description: 'move down (in a confirmation, scroll it)',
		modes: [...SCROLLS, 'effects', 'confirm', 'decisions', 'question'],
		inBar: false,
	},
	{
		command: BoardCommand.acknowledge,
		keys: ['k'],
		description: 'in Needs you, {keys} acknowledges the entry under the cursor',
		modes: ['queue'],
		inBar: true,
		short: 'ack',
		isAction: true,
	},
	{
		command: BoardCommand.up,
		keys: ['up', 'k'],
		description: 'move up',
		modes: [...SCROLLS, 'effects', 'confirm', 'decisions', 'question'],
		inBar: true,
		short: {
			list: 'move',
			queue: 'move',
			effects: 'move',
			timeline: 'scroll',
			log: 'scroll',
			help: 'scroll',
			confirm: 'scroll',
			decisions: 'move',
			question: 'scroll',
		},
		barPair: BoardCommand.down,
	},
	{
		command: BoardCommand.pageDown,
		keys: ['pagedown'],
		description: 'one page down',
		modes: [...SCROLLS, 'confirm', 'question'],
		inBar: false,
	},
	{
		command: BoardCommand.pageUp,
		keys: ['pageup'],
		description: 'one page up',
		modes: [...SCROLLS, 'confirm', 'question'],
		inBar: false,
	},
	{
		command: BoardCommand.top,
		keys: ['g', 'home'],
		description: 'to the first row (the top of a timeline, log or help)',
		modes: SCROLLS,
		inBar: false,
	},
	{
		command: BoardCommand.bottom,
		keys: ['G', 'end'],
		description: 'to the last row (the end of a log, which then follows new output)',
		modes: SCROLLS,
		inBar: false,
		short: {log: 'follow'},
	},
	{
		command: BoardCommand.focus,
		keys: ['tab'],
		description: 'switch between the lanes, Needs you, Held effects and Decisions (while a question is open)',
		modes: [...BROWSE, 'effects', 'decisions'],
		inBar: true,
		short: {list: 'queue', queue: 'effects', effects: 'lanes', decisions: 'lanes'},
	},
	{
		command: BoardCommand.decisions,
		keys: ['d'],
		description: 'to Decisions, the questions agents wait on (shown while one is open)',
		modes: [...VIEWS, 'effects', 'question'],
		inBar: true,
		short: 'decisions',
	},
	{
		command: BoardCommand.open,
		keys: ['return'],
		description: "open the task's timeline (in Held effects: the order's; on a question: the question whole, then its task's)",
		modes: [...BROWSE, 'effects', 'decisions', 'question'],
		inBar: true,
		short: 'open',
	},
	{
		command: BoardCommand.openTree,
		keys: ['right'],
		description: "{keys} opens the task's helpers beneath it",
		modes: ['list'],
		inBar: false,
		helpWith: BoardCommand.open,
	},
	{
		command: BoardCommand.closeTree,
		keys: ['left'],
		description: "{keys} folds them back into one line (on a helper: its parent's)",
		modes: ['list'],
		inBar: false,
		helpWith: BoardCommand.open,
	},
	{
		command: BoardCommand.submit,
		keys: ['return'],
		description: 'in a prompt, keep what was typed',
		modes: ['input'],
		inBar: true,
		short: 'keep',
	},
	{
		command: BoardCommand.log,
		keys: ['l'],
		description: "show the task's output, live (for an agent session, its last messages)",
		modes: ['list', 'queue', 'timeline'],
		inBar: true,
		short: 'log',
	},
	{
		command: BoardCommand.jump,
		keys: ['t'],
		description: "to the agent's tmux pane (prefix B comes back, docs/tmux.md)",
		modes: VIEWS,
		inBar: true,
		short: 'to pane',
	},
	{
		command: BoardCommand.back,
		keys: ['escape'],
		description: 'go back: close the view, help or prompt, cancel a question, clear the filter',
		modes: ['queue', 'effects', 'timeline', 'log', 'help', 'confirm', 'input', 'list', 'decisions', 'question'],
		inBar: true,
		short: {
			queue: 'lanes',
			effects: 'lanes',
			timeline: 'back',
			log: 'back',
			help: 'close',
			confirm: 'no',
			input: 'clear',
			list: 'clear filter',
			decisions: 'lanes',
			question: 'back',
		},
	},
	{
		command: BoardCommand.stop,
		keys: ['s'],
		description: 'stop the task (asks first; needs a known PID)',
		modes: VIEWS,
		inBar: true,
		short: 'stop',
		isAction: true,
	},
	{
		command: BoardCommand.approve,
		keys: ['a'],
		description:
			'approve held effects: those marked, else all (asks first, listing them); on a question, allow it (asks first, showing it whole; a budget asks for +tokens)',
		modes: [...BROWSE, 'effects', 'decisions', 'question'],
		inBar: true,
		short: {list: 'approve', queue: 'approve', effects: 'approve', decisions: 'allow', question: 'allow'},
		isAction: true,
	},
	{
		command: BoardCommand.mark,
		keys: ['space'],
		description: 'mark or unmark the held effect under the cursor',
		modes: ['effects'],
		inBar: true,
		short: 'mark',
		isAction: true,
	},
	{
		command: BoardCommand.sendBack,
		keys: ['x'],
		description: "in Held effects, send the order's held effects back (they are dropped)",
		modes: ['effects'],
		inBar: true,
		short: 'send back',
		isAction: true,
	},
	{
		command: BoardCommand.sendBack,
		keys: ['x'],
		description:
			'send back with a reason: a review that needs you, a failed task, a hand-in; on a question, deny it with a reason',
		modes: [...BROWSE, 'timeline', 'decisions', 'question'],
		inBar: true,
		short: {list: 'send back', queue: 'send back', timeline: 'send back', decisions: 'deny', question: 'deny'},
		isAction: true,
	},
	{
		command: BoardCommand.filter,
		keys: ['/'],
		description: 'filter by id, title, source or status, live as you type',
		modes: BROWSE,
		inBar: true,
		short: 'filter',
	},
	{
		command: BoardCommand.sort,
		keys: ['o'],
		description: 'sort the lanes: newest, longest idle, most tokens, title',
		modes: BROWSE,
		inBar: true,
		short: 'sort',
	},
	{
		command: BoardCommand.stats,
		keys: ['S'],
		description: 'show or hide the stats: is the process working? verdicts, fix/approve, INVALID share, Needs you, handoffs',
		modes: [...BROWSE, 'effects'],
		inBar: false,
	},
	{
		command: BoardCommand.help,
		keys: ['?'],
		description: 'show or hide this help',
		modes: EVERYWHERE,
		inBar: true,
		short: 'help',
	},
	{
		command: BoardCommand.quit,
		keys: ['q'],
		description: 'quit (the terminal is restored)',
		modes: EVERYWHERE,
		inBar: true,
		short: 'quit',
	},
	{
		command: BoardCommand.interrupt,
		keys: ['ctrl+c'],
		description: 'quit from anywhere, exit status 130',
		modes: [...EVERYWHERE, 'confirm', 'input'],
		inBar: false,
	},
	{
		command: BoardCommand.confirm,
		keys: ['y'],
		description: 'yes, in a question',
		modes: ['confirm'],
		inBar: true,
		short: 'yes',
		helpGroup: 'answer',
		isAction: true,
	},
	{
		command: BoardCommand.cancel,
		keys: ['n'],
		description: 'no, in a question',
		modes: ['confirm'],
		inBar: false,
		helpGroup: 'answer',
		isAction: true,
	},
	{
		command: BoardCommand.eventBack,
		keys: ['['],
		description: 'at a past moment (board --at): one event back',
		modes: STEPPING,
		inBar: false,
		isPastOnly: true,
	},
	{
		command: BoardCommand.eventForward,
		keys: [']'],
		description: '] one event forward (after the newest: now)',
		modes: STEPPING,
		inBar: false,
		isPastOnly: true,
		helpWith: BoardCommand.eventBack,
	},
	{
		command: BoardCommand.minuteBack,
		keys: ['{'],
		description: 'at a past moment: one minute back',
		modes: STEPPING,
		inBar: false,
		isPastOnly: true,
	},
	{
		command: BoardCommand.minuteForward,
		keys: ['}'],
		description: '} one minute forward (within a minute of the clock: now)',
		modes: STEPPING,
		inBar: false,
		isPastOnly: true,
		helpWith: BoardCommand.minuteBack,
	},
	{
		command: BoardCommand.toNow,
		keys: ['>'],
		description: 'at a past moment: straight to now (the board then follows the ledger, still read-only)',
		modes: STEPPING,
		inBar: false,
		isPastOnly: true,
	},
];

/**
 * The key table in force: a past board's (`board --at`) has its stepping keys, first (so `?` lists
 * them first, and a short terminal cuts other keys before them; no live key shares theirs), the
 * live board's has not. `table` is the one with the config file's `keys` applied (key-config.ts).
 */
export function keyTableFor(isPast: boolean, table: readonly KeyBinding[] = KEY_TABLE): readonly KeyBinding[] {
	if (table === KEY_TABLE) return isPast ? PAST_KEY_TABLE : LIVE_KEY_TABLE;
	const live = table.filter(binding => binding.isPastOnly !== true);
	return isPast ? [...table.filter(binding => binding.isPastOnly === true), ...live] : live;
}

const LIVE_KEY_TABLE = KEY_TABLE.filter(binding => binding.isPastOnly !== true);
const PAST_KEY_TABLE = [...KEY_TABLE.filter(binding => binding.isPastOnly === true), ...LIVE_KEY_TABLE];

/** The parts of Ink's `Key` the matcher reads. */
export type KeyLike = {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
	readonly home?: boolean;
	readonly end?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly tab?: boolean;
	readonly backspace?: boolean;
	readonly delete?: boolean;
	readonly ctrl?: boolean;
	readonly meta?: boolean;
};

/** Names a key press the way the table does. */
export function keyName(input: string, key: KeyLike): string {
	if (key.upArrow) return 'up';
	if (key.downArrow) return 'down';
	if (key.rightArrow) return 'right';
	if (key.leftArrow) return 'left';
	if (key.pageUp) return 'pageup';
	if (key.pageDown) return 'pagedown';
	if (key.home) return 'home';
	if (key.end) return 'end';
	if (key.return) return 'return';
	if (key.escape) return 'escape';
	if (key.tab) return 'tab';
	if (key.backspace || key.delete) return 'backspace';
	if (key.ctrl) return `ctrl+${input}`;
	if (input === ' ') return 'space';
	return input;
}

/** One key of what arrived: a burst is several. */
export type KeyPress = {readonly input: string; readonly key: KeyLike};

/**
 * Splits what one read of the terminal gave into key presses. Ink hands a burst of plain keys
 * (key repeat, a paste, or keys sent together as `tmux send-keys` does) over as one string, and
 * names no key in it: two Backspaces in a burst would otherwise be read as text.
 */
export function splitKeys(input: string, key: KeyLike): KeyPress[] {
	// Esc and a key read together arrive as Alt+key (ESC is also Alt's prefix). The board binds no
	// Alt keys, so it is what was typed: Esc, then the key.
	if (key.meta && !key.escape && input !== '')
		return [{input: '', key: {escape: true}}, ...splitKeys(input, {...key, meta: false})];
	if ([...input].length <= 1 || key.ctrl || key.meta) return [{input, key}];
	return [...input].map((char): KeyPress => {
		const code = char.codePointAt(0) ?? 0;
		if (char === '\r' || char === '\n') return {input: '', key: {return: true}};
		if (char === '\t') return {input: '', key: {tab: true}};
		if (char === '\u007F' || char === '\b') return {input: '', key: {backspace: true}};
		if (code < 0x20) return {input: String.fromCodePoint(code + 0x60), key: {ctrl: true}};
		return {input: char, key: {}};
	});
}

/** The binding a key press means in a mode, if any. */
export function matchBinding(
	input: string,
	key: KeyLike,
	mode: BoardMode,
	table: readonly KeyBinding[] = LIVE_KEY_TABLE,
): KeyBinding | undefined {
	const name = keyName(input, key);
	return table.find(binding => binding.modes.includes(mode) && binding.keys.includes(name));
}

/** The bindings help and the help bar show: on a read-only board, none that acts (`isAction`). */
export function bindingsShown(table: readonly KeyBinding[], isReadOnly = false): readonly KeyBinding[] {
	return isReadOnly ? table.filter(binding => !binding.isAction) : table;
}

/** A line of `?` help. */
export type HelpLine = {readonly keys: string; readonly description: string};

/** What `?` help says a binding does: its description, its own keys where it names them (`{keys}`). */
function describe(binding: KeyBinding): string {
	const text = binding.description.replaceAll('{keys}', labelOf(binding.keys));
	return binding.notBuilt ? `${text} — not built yet` : text;
}

/**
 * The `?` help from the table: each key on one line only. Bindings that share a key (k moves up,
 * and acknowledges in Needs you) share a line; unbuilt features say so.
 */
export function helpLines(table: readonly KeyBinding[] = LIVE_KEY_TABLE): HelpLine[] {
	const lines: {keys: Set<string>; bindings: KeyBinding[]}[] = [];
	for (const binding of table) {
		const line = lines.find(
			candidate =>
				binding.keys.some(name => candidate.keys.has(name)) ||
				candidate.bindings.some(other => other.command === binding.helpWith) ||
				(binding.helpGroup !== undefined && candidate.bindings.some(other => other.helpGroup === binding.helpGroup)),
		);
		if (line) {
			for (const name of binding.keys) line.keys.add(name);
			line.bindings.push(binding);
		} else {
			lines.push({keys: new Set(binding.keys), bindings: [binding]});
		}
	}
	return lines.map(line => {
		// The binding that works in more places leads the line: `k/↑ move up; in Needs you, k ...`.
		const bindings = [...line.bindings].sort((a, b) => b.modes.length - a.modes.length);
		const shown = [...new Set(bindings.flatMap(binding => keysShown(binding.keys)))];
		return {keys: joinKeys(shown), description: [...new Set(bindings.map(describe))].join('; ')};
	});
}

/** A binding's key as the status line names it: the first of its keys. */
export function keyWordOf(binding: KeyBinding): string {
	return keysShown(binding.keys)[0] ?? '';
}

/** Each command's key as the status line names it: the first of its keys (`a`, `j`, `PgDn`, `enter`). */
export type KeyWords = Readonly<Record<BoardCommand, string>>;

const wordsOfTable = new WeakMap<readonly KeyBinding[], KeyWords>();

/** The words for every command's key in `table` (a remapped table names its own keys), made once a table. */
export function keyWordsOf(table: readonly KeyBinding[] = KEY_TABLE): KeyWords {
	const known = wordsOfTable.get(table);
	if (known) return known;
	const words = Object.fromEntries(Object.values(BoardCommand).map(command => [command, ''])) as Record<BoardCommand, string>;
	for (const binding of [...table].reverse()) words[binding.command] = keysShown(binding.keys)[0] ?? '';
	wordsOfTable.set(table, words);
	return words;
}

/** An entry of the help bar. */
export type BarItem = {
	readonly command: BoardCommand;
	readonly keys: string;
	readonly label: string;
	readonly isDisabled: boolean;
	readonly isNotBuilt: boolean;
};

/** What the help bar gives up first when it does not fit: unbuilt features, then these, in order; help and quit stay. */
const BAR_GIVES_UP: readonly BoardCommand[] = [
	BoardCommand.jump,
	BoardCommand.sort,
	BoardCommand.decisions,
	BoardCommand.back,
	BoardCommand.approve,
	BoardCommand.sendBack,
	BoardCommand.focus,
	BoardCommand.acknowledge,
	BoardCommand.log,
	BoardCommand.open,
	BoardCommand.stop,
	BoardCommand.filter,
	BoardCommand.up,
	BoardCommand.bottom,
];

/** In Held effects its own keys (mark, approve, send back) are what the bar is for: moving and Esc go first. */
const EFFECTS_BAR_GIVES_UP: readonly BoardCommand[] = [
	BoardCommand.decisions,
	BoardCommand.back,
	BoardCommand.up,
	BoardCommand.open,
	BoardCommand.focus,
	BoardCommand.sendBack,
	BoardCommand.mark,
	BoardCommand.approve,
];

/** How wide the help bar draws an item: `keys label` and two spaces. */
export function barItemWidth(item: BarItem): number {
	return (item.keys ? [...item.keys].length + 1 : 0) + [...item.label].length + 2;
}

/** The help bar cut to `width` columns by leaving out what matters least in `mode`, never help or quit. */
export function fitBar(items: readonly BarItem[], width: number, mode: BoardMode = 'list'): BarItem[] {
	let kept = [...items];
	const total = () => kept.reduce((sum, item) => sum + barItemWidth(item), 0);
	// Decisions and a question shown whole keep allow and deny, as Held effects keeps its keys.
	const givesUp = mode === 'effects' || mode === 'decisions' || mode === 'question' ? EFFECTS_BAR_GIVES_UP : BAR_GIVES_UP;
	const order = [...kept.filter(item => item.isNotBuilt).map(item => item.command), ...givesUp];
	for (const command of order) {
		if (total() <= width) break;
		kept = kept.filter(item => item.command !== command);
	}
	return kept;
}

function shortFor(binding: KeyBinding, mode: BoardMode): string {
	if (typeof binding.short === 'string') return binding.short;
	return binding.short?.[mode] ?? binding.description;
}

/**
 * The keys a bar item writes: its own, or with those of its pair before them (`j/k move`); where
 * one of the pair's letters means something else in the mode (`k` acknowledges in Needs you), the
 * arrows (`↑↓ move`).
 */
function barKeys(binding: KeyBinding, mode: BoardMode, table: readonly KeyBinding[]): string {
	const pair =
		binding.barPair === undefined
			? undefined
			: table.find(other => other.command === binding.barPair && other.modes.includes(mode));
	if (!pair) return labelOf(binding.keys);
	const letter = (of: KeyBinding) =>
		of.keys.find(
			name => isCharacterKey(name) && table.find(other => other.modes.includes(mode) && other.keys.includes(name)) === of,
		);
	const [first, second] = [letter(pair), letter(binding)];
	if (first !== undefined && second !== undefined) return `${first}/${second}`;
	const arrows = [binding, pair].map(of => keysShown(of.keys.filter(name => !isCharacterKey(name)))[0] ?? '');
	return arrows.join('');
}

/**
 * The help bar for a mode, from the table; `disabled` names commands that cannot act now (drawn
 * dim), `hidden` those that mean nothing now (not drawn).
 */
export function helpBar(
	mode: BoardMode,
	disabled: ReadonlySet<BoardCommand> = new Set(),
	table: readonly KeyBinding[] = LIVE_KEY_TABLE,
	hidden: ReadonlySet<BoardCommand> = new Set(),
): BarItem[] {
	return table
		.filter(binding => binding.inBar && binding.modes.includes(mode) && !hidden.has(binding.command))
		.map(binding => ({
			command: binding.command,
			keys: barKeys(binding, mode, table),
			label: shortFor(binding, mode),
			isDisabled: disabled.has(binding.command) || binding.notBuilt !== undefined,
			isNotBuilt: binding.notBuilt !== undefined,
		}));
}
