import type {DecisionRecord} from '../../decisions/fold.ts';
import type {selectHeldEffects} from '../effects-view.ts';
import type {BoardCommand, KeyWords} from '../keymap.ts';
import type {BoardOptions, LanesView, selectQueue} from '../selectors.ts';
import type {ScreenView} from '../screen-view.ts';
import type {BoardState} from '../state.ts';

/**
 * What every panel reads to make its view: the state at `now` for a terminal of `width`×`height`,
 * and the selections more than one panel uses, made once per frame (boardInput, input.ts).
 */
export type PanelInput = {
	readonly state: BoardState;
	readonly now: number;
	readonly width: number;
	readonly height: number;
	readonly options: BoardOptions;
	/** Each command's key in force (the config file's `keys` applied), for words that name a key. */
	readonly keys: KeyWords;
	/** Rows a row is drawn in one line (else a detail line under the lanes carries the rest). */
	readonly isWideRows: boolean;
	/** Needs you, Reviews and Held effects side by side (else stacked). */
	readonly isSideBySide: boolean;
	readonly alerts: readonly string[];
	/** Rows between the header (with its alerts) and the footer. */
	readonly available: number;
	readonly lanes: LanesView;
	readonly queue: ReturnType<typeof selectQueue>;
	readonly held: ReturnType<typeof selectHeldEffects>;
	readonly openQuestions: readonly DecisionRecord[];
	/** The band under the lanes that Needs you, Reviews and Held effects share. */
	readonly band: {readonly queueLines: number; readonly effectsLines: number; readonly height: number};
	/** A question drawn whole: its drill-in, or the allow confirmation. */
	readonly isQuestionShown: boolean;
};

/** Where the panels were given room: the rows each asked for, and what is left to the lanes. */
export type PanelLayout = {readonly rows: ReadonlyMap<string, number>; readonly lanesHeight: number};

/** A panel's keys in the help bar this frame: commands it greys out (`off`), gives back (`on`) or hides. */
export type KeyChanges = {
	readonly off?: readonly BoardCommand[];
	readonly on?: readonly BoardCommand[];
	readonly hidden?: readonly BoardCommand[];
};

/** What a panel adds to the frame. */
export type PanelPart = {
	/** Its slice of the screen's view model: plain data, no colours (tones), no renderer's types. */
	readonly view: Partial<ScreenView>;
	readonly keys?: KeyChanges;
	/** Set by the view that scrolls (a timeline, a log, a question): how far, and a page's rows. */
	readonly scroll?: {readonly scrollMax?: number; readonly pageSize?: number};
};

/**
 * A panel of the board (docs/architecture.md, "A panel"): its name, the commands of the key table
 * it answers (keymap.ts: the key table stays the one source of help, the bar and the docs), the
 * rows it asks for under the lanes (none when it takes the whole body or shares a band), and its
 * view. Its state slice is a part of BoardState, changed by its actions (`actions`, merged into the
 * one reducer by state.ts).
 */
export type BoardPanel = {
	readonly name: string;
	readonly commands: readonly BoardCommand[];
	rows?(input: PanelInput): number;
	view(input: PanelInput, layout: PanelLayout): PanelPart;
};
