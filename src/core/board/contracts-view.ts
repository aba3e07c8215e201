import {assertNever} from '../assert-never.ts';
import {writerLine, type BoardContract, type IntakeState} from '../contract/intake.ts';
import {cellWidth, cutCells} from '../cell-width.ts';
import {formatDuration} from '../format.ts';
import {terminalSafe} from '../terminal-text.ts';
import type {PanelBlock, ToneLine} from './screen-view.ts';
import type {Tone} from './tone.ts';

// The board's Contracts panel (docs/serve.md, "On the board and in the snapshot"): every stored
// contract a person or a taker still has to act on, and who wrote each. A draft waits for a
// person's `contract ready`, a ready one for a taker, a taken one for its holder, a hand-in for
// its acceptor; one accepted within the board's window stays as done.

/** The order the panel lists them in: what waits on a person first, then what waits on a taker. */
const ORDER: Readonly<Record<IntakeState, number>> = {
	'handed in': 0,
	draft: 1,
	'passed back': 2,
	rejected: 3,
	ready: 4,
	taken: 5,
	accepted: 6,
};

const TONE: Readonly<Record<IntakeState, Tone | null>> = {
	'handed in': 'accent',
	draft: 'warn',
	'passed back': 'warn',
	rejected: 'warn',
	ready: 'info',
	taken: null,
	accepted: 'muted',
};

/** What a contract waits for, in a few words, from its state. */
function waitsFor(contract: BoardContract, now: number): string {
	const since = (at: number): string => formatDuration(Math.max(0, now - at));
	switch (contract.state) {
		case 'draft':
			return "waits for a person's contract ready";
		case 'ready':
			return `waits for a taker ${since(contract.readied?.at ?? contract.updatedAt)}`;
		case 'passed back':
		case 'rejected':
			return `${contract.state} by ${contract.passedBack?.by ?? 'unknown'}: ${contract.passedBack?.reason ?? ''}`;
		case 'taken':
			return `held by ${contract.claim?.holder ?? 'unknown'} (${contract.claim?.taskId ?? '?'}) ${since(contract.claim?.at ?? contract.updatedAt)}`;
		case 'handed in':
			return `hand-in waits for ${contract.handIn?.acceptor ?? 'its acceptor'}`;
		case 'accepted':
			return `accepted by ${contract.acceptedBy ?? 'unknown'}`;
		default:
			return assertNever(contract.state);
	}
}

/** The title and writer get at least this many cells when the line is cut to the panel's width. */
const MIN_MIDDLE_CELLS = 12;

/**
 * One contract on one line: state, id, title, who wrote it, what it waits for; all of it made
 * terminal-safe. Too wide for `width`, the title and writer are cut first, so what the contract
 * waits for (what a person acts on) stays on screen.
 */
export function contractLine(contract: BoardContract, now: number, width = Number.POSITIVE_INFINITY): ToneLine {
	const where = contract.host === undefined ? '' : `${contract.host} `;
	const head = terminalSafe(`${contract.state.padEnd(11)} ${where}${contract.id}`);
	const middle = terminalSafe(`"${contract.title ?? ''}" from ${writerLine(contract.writer)}:`);
	const tail = terminalSafe(waitsFor(contract, now));
	const room = width - cellWidth(head) - cellWidth(tail) - 2;
	const fitted = cellWidth(middle) <= room ? middle : cutCells(middle, Math.max(MIN_MIDDLE_CELLS, room));
	return {text: `${head} ${fitted} ${tail}`, tone: TONE[contract.state]};
}

/** The contracts in the panel's order: by state, then oldest written first. */
export function orderContracts(contracts: readonly BoardContract[]): BoardContract[] {
	return [...contracts].sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.writtenAt - b.writtenAt || a.id.localeCompare(b.id));
}

/**
 * The Contracts panel in at most `rows` rows (its title included), or null when no contract is
 * listed: the first contracts in order, and how many more did not fit on the title line.
 */
export function selectContractsPanel(
	contracts: readonly BoardContract[],
	now: number,
	size: {readonly rows: number; readonly width: number},
): PanelBlock | null {
	const {rows, width} = size;
	if (contracts.length === 0 || rows < 2) return null;
	const ordered = orderContracts(contracts);
	const shown = ordered.slice(0, rows - 1);
	const more = ordered.length - shown.length;
	return {
		name: 'contracts',
		title: `CONTRACTS (${ordered.length})${more > 0 ? `, ${more} more: snapshot --json lists all` : ''}`,
		lines: shown.map(contract => contractLine(contract, now, width)),
		height: shown.length + 1,
		isFocused: false,
	};
}
