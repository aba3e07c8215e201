import type {BoardAdapters} from '../../../hooks/use-control-room.ts';
import {openingBoard} from '../../core/board/opening.ts';
import {selectScreen} from '../../core/board/screen.ts';
import {reduceBoard, type BoardState} from '../../core/board/state.ts';
import {boardHtml, questionHtml} from './render.ts';
import type {DecisionRecord} from '../../core/decisions/fold.ts';

// One board for every page: the terminal board's feed and reducer (the same state the TUI keeps),
// read at most every READ_MS, and each page's view of it (its width, the task it drilled into, help)
// drawn by the board's own screen selector and rendered to HTML. Pages that show the same view
// share one rendering, so fifty open pages cost one render a change (docs/web.md, "How it stays live").

/** How often the ledger is looked at for new events: a change reaches every page within this and a render. */
const READ_MS = 100;
/** Ages and idle times move on with the clock: every view is drawn again this often, sent only if changed. */
const CLOCK_MS = 1000;
/** Rows the board is laid out in: the page scrolls, so every panel gets the room it asks for. */
export const WEB_ROWS = 200;
/** Columns when the page did not say (the page's script measures its own). */
export const DEFAULT_COLS = 120;

/** What a page shows: the board at its width, or a task's drill-down, or help. */
export type WebView = {readonly cols: number; readonly taskId: string | null; readonly isHelp: boolean};

type Source = Pick<BoardAdapters, 'feed' | 'options' | 'reconcile' | 'reconcileIntervalMs'>;

type Subscriber = {readonly view: WebView; readonly send: (html: string) => void};

export type BoardHub = {
	/** An open question as the board knows it (its arguments' hash is what an answer is bound to). */
	decision(id: string): DecisionRecord | undefined;
	/** A question's page body: the board's drill-in view of it, whole. */
	questionHtml(id: string, cols: number): string;
	/** The view's HTML now. */
	html(view: WebView): string;
	/** Calls `send` with the view's HTML whenever it changes; returns the unsubscribe. */
	subscribe(view: WebView, send: (html: string) => void): () => void;
	/** Reads the ledger at once (after an answer from the page). */
	refresh(): void;
	readonly clients: () => number;
	close(): void;
};

const viewKey = (view: WebView): string => `${view.cols}|${view.taskId ?? ''}|${view.isHelp ? 'h' : ''}`;

/** Opens the hub on `source`'s feed: the first read now, then a read every READ_MS. */
export function createBoardHub(source: Source, now: () => number = Date.now): BoardHub {
	const {feed, options} = source;
	let state: BoardState = openingBoard(feed.load(now()), now(), {width: DEFAULT_COLS, height: WEB_ROWS}, options).state;
	let version = 0;
	const subscribers = new Set<Subscriber>();
	/** The last HTML sent to each view, and the version of the ledger it was drawn at. */
	const shown = new Map<string, {readonly html: string; readonly version: number}>();

	const render = (view: WebView, at: number): string => {
		let viewState = state;
		if (view.taskId !== null)
			viewState = reduceBoard(viewState, {type: 'open-timeline', taskId: view.taskId, events: feed.eventsOf(view.taskId)});
		else if (view.isHelp) viewState = reduceBoard(viewState, {type: 'toggle-help'});
		return boardHtml(selectScreen(viewState, at, {width: view.cols, height: WEB_ROWS}, options));
	};

	const push = (isClockTick: boolean): void => {
		const at = now();
		const groups = new Map<string, Subscriber[]>();
		for (const subscriber of subscribers) {
			const key = viewKey(subscriber.view);
			groups.set(key, [...(groups.get(key) ?? []), subscriber]);
		}
		for (const [key, group] of groups) {
			const last = shown.get(key);
			if (last !== undefined && last.version === version && !isClockTick) continue;
			const html = render(group[0]!.view, at);
			shown.set(key, {html, version});
			if (last?.html !== html) for (const subscriber of group) subscriber.send(html);
		}
	};

	let lastSeq = state.lastSeq;
	const read = (): void => {
		let batch = feed.poll(lastSeq, now(), null);
		let changed = false;
		while (batch) {
			lastSeq = batch.lastSeq;
			state = reduceBoard(state, {type: 'ledger-read', ...batch});
			changed = true;
			batch = batch.hasMore ? feed.poll(lastSeq, now(), null) : null;
		}
		if (changed) {
			version += 1;
			push(false);
		}
	};
	const reader = setInterval(read, READ_MS);
	const clock = setInterval(() => push(true), CLOCK_MS);
	const reconciler =
		source.reconcile === undefined
			? undefined
			: setInterval(() => void Promise.resolve(source.reconcile?.()).catch(() => undefined), source.reconcileIntervalMs ?? 5000);
	const unsubscribe = feed.subscribe?.(read);
	return {
		html: view => render(view, now()),
		decision: id => state.decisions.find(decision => decision.id === id),
		questionHtml(id, cols) {
			const opened = reduceBoard(state, {type: 'open-question', id});
			return questionHtml(selectScreen(opened, now(), {width: cols, height: WEB_ROWS}, options));
		},
		subscribe(view, send) {
			const subscriber = {view, send};
			subscribers.add(subscriber);
			// What the page shows may be older than now (a change between the page and its stream): send it current.
			const html = render(view, now());
			shown.set(viewKey(view), {html, version});
			send(html);
			return () => void subscribers.delete(subscriber);
		},
		refresh: read,
		clients: () => subscribers.size,
		close() {
			clearInterval(reader);
			clearInterval(clock);
			if (reconciler) clearInterval(reconciler);
			unsubscribe?.();
			subscribers.clear();
		},
	};
}
