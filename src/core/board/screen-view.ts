import type {ApprovalView} from './approval-view.ts';
import type {DecisionsPanelView} from './decisions-view.ts';
import type {HeldEffectRef, HeldEffectsLine} from './effects-view.ts';
import type {BarItem, BoardMode, KeyWords} from './keymap.ts';
import type {LogWindow, TaskLog} from './log-view.ts';
import type {ReviewsView} from './reviews-view.ts';
import type {RowColumns} from './row-layout.ts';
import type {LanesWindow, QueueLaneView, TaskRowView} from './selectors.ts';
import type {SpendTables} from './spend-view.ts';
import type {Notice} from './state.ts';
import type {TableView} from './table-layout.ts';
import type {TimelineLineView, TimelineView} from './timeline-view.ts';
import type {Tone} from './tone.ts';

/** The view models the board's panels are drawn from: plain data, tones and no colours, so any renderer can draw them. */

/** A line of Needs you: a lane's heading, an entry (the cursor's is selected), or what more there is. */
export type QueueLine = {
	readonly key: string;
	readonly kind: 'heading' | 'item' | 'more';
	readonly lane: string;
	readonly text: string;
	readonly isSelected?: boolean;
};

/** One line of a plain panel: text already made safe, and the tone it is drawn in. */
export type ToneLine = {readonly text: string; readonly tone: Tone | null};

/**
 * A panel whose view is a title and lines with tones: any renderer draws it with no component of
 * its own (components/BlockPanel.tsx on the terminal). A new panel starts as one.
 */
export type PanelBlock = {
	readonly name: string;
	readonly title: string;
	readonly lines: readonly ToneLine[];
	readonly height: number;
	readonly isFocused: boolean;
};

/** `?` help fitted to the rows under the header: one column, two side by side, or one that scrolls. */
export type HelpScreen = {
	/** The headings (`KEYS`, `WHAT IT DOES`) over the rows. */
	readonly hasTitle: boolean;
	/** Each column as a table of keys and what they do, in terminal cells (drawn by ink-table); a row a line. */
	readonly tables: readonly TableView[];
	/** Where help is taller than the screen: the rows shown of how many, and how far it scrolls; null when it all shows. */
	readonly window: {
		readonly start: number;
		readonly end: number;
		readonly total: number;
		readonly scrollMax: number;
		readonly pageSize: number;
	} | null;
	/** The line under a window: which lines show, and the keys that scroll (`lines 1–19 of 34 · j/k scroll`). */
	readonly note: string | null;
};

/** The log view as drawn. */
export type LogScreen = LogWindow & {
	readonly row: TaskRowView | null;
	/** Where the lines come from, or why there are none; null until the first read. */
	readonly origin: string | null;
	readonly note: string | null;
	readonly source: TaskLog['source'] | null;
};

/** Everything the screen draws, preformatted and sized to the terminal. */
export type ScreenView = {
	readonly width: number;
	readonly height: number;
	readonly mode: BoardMode;
	/** The header: counts per lane and Needs you, and the sort order (always shown, at the right). */
	readonly header: {readonly counts: string; readonly sort: string; readonly burn?: string | null};
	/** Lines under the header that stay until the board is closed: the ledger file was replaced or failed its integrity check, hook events were dropped. */
	readonly alerts: readonly string[];
	/** On a board at a past moment (`board --at`): the line under the header naming the moment; absent on the live board. */
	readonly past?: {readonly text: string; readonly isNow: boolean} | null;
	/** The ledger the board shows, cut to fit, or null when the caller did not name one. */
	readonly ledger: string | null;
	readonly isWideRows: boolean;
	/** More than one host among the tasks (a fleet ledger): rows carry a host column. */
	readonly showHost: boolean;
	readonly lanes: LanesWindow & {
		readonly height: number;
		/** The columns every row is drawn in, sized to the terminal and to the rows (row-layout.ts). */
		readonly columns: RowColumns;
		/** The column headings line over the rows. */
		readonly headings: string;
	};
	readonly selectedId: string | null;
	/** Where the cursor is in `order`. */
	readonly selectedIndex: number;
	/** The selected task, for the detail line on narrow screens and for the stop key. */
	readonly selected: TaskRowView | null;
	readonly queue: {
		readonly lanes: readonly QueueLaneView[];
		/** The lines drawn under its title, fitted to its height (panels/needs-you.ts). */
		readonly lines: readonly QueueLine[];
		readonly total: number;
		readonly selectedTaskId: string | null;
		readonly isFocused: boolean;
		readonly height: number;
		/** After the title while it has the focus: what its keys do (`— k acknowledges, x sends back, tab moves on`). */
		readonly hint: string;
	};
	readonly isSideBySide: boolean;
	/** Side by side: the widths of Needs you, Reviews and Held effects (which widens while it holds calls). */
	readonly panelWidths: {readonly queue: number; readonly reviews: number; readonly effects: number};
	/** The Reviews panel: the latest verdicts. */
	readonly reviews: ReviewsView;
	/** HELD EFFECTS: held calls by order, then recent outcomes. */
	readonly effects: {
		readonly lines: readonly HeldEffectsLine[];
		readonly heldCount: number;
		readonly markedCount: number;
		readonly isFocused: boolean;
		readonly height: number;
		/** After the title: what its keys do with the focus, or how to give it the focus (`(tab to act)`). */
		readonly hint: string;
	};
	/** Held effects in cursor order (space and x act on the one under the cursor). */
	readonly effectOrder: readonly HeldEffectRef[];
	/** An approval waiting for y: every call it would run, whole, wrapped, and scrolled to what fits. */
	readonly approval: (ApprovalView & {readonly count: number}) | null;
	/** DECISIONS: every question a person can answer, oldest first; null while none is open (the panel is not drawn). */
	readonly decisions: (DecisionsPanelView & {readonly hint: string}) | null;
	/** The open questions' ids in cursor order. */
	readonly decisionOrder: readonly string[];
	/** A question shown whole: its drill-in, or the allow confirmation (`isConfirm`) `y` waits on. */
	readonly question: (ApprovalView & {readonly id: string; readonly isConfirm: boolean}) | null;
	readonly timeline:
		| (Omit<TimelineView, 'lines'> & {
				readonly lines: readonly TimelineLineView[];
				readonly start: number;
				readonly total: number;
				/** The worker's track record, when the open id is an order or a task an order ran under. */
				readonly record: TableView | null;
				/** What the task's tree spent by model and by helper (tables drawn by ink-table). */
				readonly spend: SpendTables;
				/** `order o-42 for worker-1` when the open id is a work order (not a task). */
				readonly order: string | null;
				/** Why the task shows its status, or the two signals that disagree (controlroom explain says more). */
				readonly why: string | null;
		  })
		| null;
	readonly log: LogScreen | null;
	/** Panels drawn as a title and toned lines (PanelBlock), stacked under the others in panel order. */
	readonly blocks: readonly PanelBlock[];
	readonly help: HelpScreen | null;
	readonly bar: readonly BarItem[];
	/** Each command's key in force, for the words that name one (`y allows this call once, n cancels`). */
	readonly keys: KeyWords;
	/** Opened with --read-only: the header says so, and no action key is offered. */
	readonly isReadOnly: boolean;
	readonly notice: Notice | null;
	/** The filter in force, shown on the status line whatever the width; null when none. */
	readonly filter: string | null;
	readonly prompt: {readonly label: string; readonly text: string} | null;
	readonly confirm: string | null;
	/** Row order for `j`/`k`, and queue order for the Needs you cursor. */
	readonly order: readonly string[];
	readonly queueOrder: readonly {readonly taskId: string; readonly at: number; readonly lane: string; readonly about?: string}[];
	/** Rows a PgUp/PgDn moves in the current view. */
	readonly pageSize: number;
	/** How far the open timeline or log can scroll. */
	readonly scrollMax: number;
};
