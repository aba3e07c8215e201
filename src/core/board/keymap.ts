/** What the board can be doing; each mode has its own keys (one input handler is live at a time). */
export const BOARD_MODES = ['list', 'queue', 'effects', 'timeline', 'help', 'confirm', 'input'] as const;
export type BoardMode = (typeof BOARD_MODES)[number];

/** Every board command, named once. */
export const BoardCommand = {
	down: 'nav.down',
	up: 'nav.up',
	focus: 'nav.focus',
	open: 'task.open',
	back: 'view.back',
	stop: 'task.stop',
	approve: 'effects.approve',
	mark: 'effects.mark',
	sendBack: 'work.send-back',
	acknowledge: 'queue.acknowledge',
	filter: 'view.filter',
	help: 'app.help',
	quit: 'app.quit',
	confirm: 'confirm.yes',
	cancel: 'confirm.no',
} as const;
export type BoardCommand = (typeof BoardCommand)[keyof typeof BoardCommand];

/** One row of the key table: the keys, where they work, and the words help shows. */
export type KeyBinding = {
	readonly command: BoardCommand;
	/** Key names: a character, or one of up, down, return, escape, space, tab, ctrl+c. */
	readonly keys: readonly string[];
	/** How help and the help bar write the keys. */
	readonly label: string;
	readonly description: string;
	readonly modes: readonly BoardMode[];
	/** Set when the feature behind the key is not built yet; the key then says so instead of acting. */
	readonly notBuilt?: string;
	/** Shown in the help bar (the rest only in `?` help). */
	readonly inBar: boolean;
};

const BROWSE: readonly BoardMode[] = ['list', 'queue'];

/** The one key table: matching, `?` help, the help bar and docs/board.md come from it. */
export const KEY_TABLE: readonly KeyBinding[] = [
	{
		command: BoardCommand.down,
		keys: ['down', 'j'],
		label: 'j/↓',
		description: 'move down',
		modes: ['list', 'timeline'],
		inBar: false,
	},
	{
		command: BoardCommand.up,
		keys: ['up', 'k'],
		label: 'k/↑',
		description: 'move up (in the lanes)',
		modes: ['list', 'timeline'],
		inBar: true,
	},
	{
		command: BoardCommand.down,
		keys: ['down', 'j'],
		label: 'j/↓',
		description: 'move down in Needs you',
		modes: ['queue'],
		inBar: false,
	},
	{command: BoardCommand.up, keys: ['up'], label: '↑', description: 'move up in Needs you', modes: ['queue'], inBar: false},
	{
		command: BoardCommand.down,
		keys: ['down', 'j'],
		label: 'j/↓',
		description: 'move down in Held effects',
		modes: ['effects'],
		inBar: false,
	},
	{
		command: BoardCommand.up,
		keys: ['up', 'k'],
		label: 'k/↑',
		description: 'move up in Held effects',
		modes: ['effects'],
		inBar: true,
	},
	{
		command: BoardCommand.focus,
		keys: ['tab'],
		label: 'tab',
		description: 'switch between the lanes, Needs you and Held effects',
		modes: [...BROWSE, 'effects'],
		inBar: true,
	},
	{
		command: BoardCommand.open,
		keys: ['return'],
		label: 'enter',
		description: "open the task's timeline (in Held effects: the order's)",
		modes: [...BROWSE, 'effects'],
		inBar: true,
	},
	{command: BoardCommand.back, keys: ['escape'], label: 'esc', description: 'go back', modes: ['timeline', 'help'], inBar: true},
	{
		command: BoardCommand.stop,
		keys: ['s'],
		label: 's',
		description: 'stop the task (asks first; needs a known PID)',
		modes: ['list', 'timeline'],
		inBar: true,
	},
	{
		command: BoardCommand.acknowledge,
		keys: ['k'],
		label: 'k',
		description: 'acknowledge the selected Needs you entry',
		modes: ['queue'],
		inBar: true,
	},
	{
		command: BoardCommand.approve,
		keys: ['a'],
		label: 'a',
		description: 'approve held effects: those marked, else all (asks first, listing them)',
		modes: [...BROWSE, 'effects'],
		inBar: true,
	},
	{
		command: BoardCommand.mark,
		keys: ['space'],
		label: 'space',
		description: 'mark or unmark the held effect under the cursor',
		modes: ['effects'],
		inBar: true,
	},
	{
		command: BoardCommand.sendBack,
		keys: ['x'],
		label: 'x',
		description: "send the order's held effects back with a reason (they are dropped)",
		modes: ['effects'],
		inBar: true,
	},
	{
		command: BoardCommand.sendBack,
		keys: ['x'],
		label: 'x',
		description: 'send back with a reason: a review that needs you, a failed task, a hand-in',
		modes: [...BROWSE, 'timeline'],
		inBar: true,
	},
	{
		command: BoardCommand.filter,
		keys: ['/'],
		label: '/',
		description: 'filter by id, title, source or status',
		modes: BROWSE,
		inBar: true,
	},
	{
		command: BoardCommand.help,
		keys: ['?'],
		label: '?',
		description: 'show or hide this help',
		modes: ['list', 'queue', 'effects', 'timeline', 'help'],
		inBar: true,
	},
	{
		command: BoardCommand.quit,
		keys: ['q', 'ctrl+c'],
		label: 'q',
		description: 'quit (the terminal is restored)',
		modes: ['list', 'queue', 'effects', 'timeline', 'help'],
		inBar: true,
	},
	{command: BoardCommand.confirm, keys: ['y'], label: 'y', description: 'confirm', modes: ['confirm'], inBar: true},
	{
		command: BoardCommand.cancel,
		keys: ['n', 'escape'],
		label: 'n/esc',
		description: 'cancel',
		modes: ['confirm', 'input'],
		inBar: true,
	},
];

/** The parts of Ink's `Key` the matcher reads. */
export type KeyLike = {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly tab?: boolean;
	readonly ctrl?: boolean;
};

/** Names a key press the way the table does. */
export function keyName(input: string, key: KeyLike): string {
	if (key.upArrow) return 'up';
	if (key.downArrow) return 'down';
	if (key.return) return 'return';
	if (key.escape) return 'escape';
	if (key.tab) return 'tab';
	if (key.ctrl) return `ctrl+${input}`;
	if (input === ' ') return 'space';
	return input;
}

/** The binding a key press means in a mode, if any. */
export function matchBinding(
	input: string,
	key: KeyLike,
	mode: BoardMode,
	table: readonly KeyBinding[] = KEY_TABLE,
): KeyBinding | undefined {
	const name = keyName(input, key);
	return table.find(binding => binding.modes.includes(mode) && binding.keys.includes(name));
}

/** A line of `?` help. */
export type HelpLine = {readonly keys: string; readonly description: string};

/** The `?` help, one line per command and key, from the table; unbuilt features say so. */
export function helpLines(table: readonly KeyBinding[] = KEY_TABLE): HelpLine[] {
	const seen = new Set<string>();
	const lines: HelpLine[] = [];
	for (const binding of table) {
		const id = `${binding.label}:${binding.description}`;
		if (seen.has(id)) continue;
		seen.add(id);
		lines.push({
			keys: binding.label,
			description: binding.notBuilt ? `${binding.description} — not built yet` : binding.description,
		});
	}
	return lines;
}

/** An entry of the help bar. */
export type BarItem = {readonly keys: string; readonly label: string; readonly isDisabled: boolean; readonly isNotBuilt: boolean};

const SHORT: Partial<Record<BoardCommand, string>> = {
	[BoardCommand.up]: 'j/k move',
	[BoardCommand.focus]: 'queue',
	[BoardCommand.open]: 'open',
	[BoardCommand.back]: 'back',
	[BoardCommand.stop]: 'stop',
	[BoardCommand.acknowledge]: 'ack',
	[BoardCommand.approve]: 'approve',
	[BoardCommand.mark]: 'mark',
	[BoardCommand.sendBack]: 'send back',
	[BoardCommand.filter]: 'filter',
	[BoardCommand.help]: 'help',
	[BoardCommand.quit]: 'quit',
	[BoardCommand.confirm]: 'yes',
	[BoardCommand.cancel]: 'no',
};

/** The help bar for a mode, from the table; `disabled` names commands that cannot act now. */
export function helpBar(
	mode: BoardMode,
	disabled: ReadonlySet<BoardCommand> = new Set(),
	table: readonly KeyBinding[] = KEY_TABLE,
): BarItem[] {
	return table
		.filter(binding => binding.inBar && binding.modes.includes(mode))
		.map(binding => ({
			keys: binding.command === BoardCommand.up ? '' : binding.label,
			label: SHORT[binding.command] ?? binding.description,
			isDisabled: disabled.has(binding.command) || binding.notBuilt !== undefined,
			isNotBuilt: binding.notBuilt !== undefined,
		}));
}

/** How wide the footer draws an item: `keys label` and two spaces after it. */
const barItemWidth = (item: BarItem): number => (item.keys ? item.keys.length + 1 : 0) + item.label.length + 2;

/**
 * The help bar cut to `width` columns: items are dropped from the end of the actions, never `? help`
 * and `q quit` (the last two), so a narrow terminal still says how to get help and out; the keys
 * left out are all in `?` help.
 */
export function fitBar(items: readonly BarItem[], width: number): BarItem[] {
	const kept = [...items];
	const tail = kept.splice(-2);
	const total = (list: readonly BarItem[]): number => list.reduce((sum, item) => sum + barItemWidth(item), 0);
	while (kept.length > 0 && total(kept) + total(tail) - 2 > width) kept.pop();
	return [...kept, ...tail];
}
