import {EventType, type LedgerEvent} from '../events.ts';
import {wrapCells} from '../cell-width.ts';
import {terminalSafe} from '../terminal-text.ts';
import {formatDuration} from '../format.ts';
import type {Task} from '../task.ts';
import {changeSize, describeEvent, foldHeartbeats} from '../timeline.ts';
import {toRowView, type TaskRowView} from './selectors.ts';
import {acceptanceLinesView} from './acceptance-lines-view.ts';

/** A timeline line, preformatted. */
export type TimelineLineView = {readonly key: string; readonly time: string; readonly text: string; readonly isFolded: boolean};

/** The drill-down: the task's row, its contract and evidence as the ledger holds them, its events. */
export type TimelineView = {
	readonly row: TaskRowView | null;
	readonly contract: readonly string[];
	readonly evidence: readonly string[];
	/** `run --worktree`: where and on which branch, then the diff stat by file; empty for a task run in place. */
	readonly worktree: readonly string[];
	/** A hand-in line by line: each acceptance line's verdicts and evidence, then who owes what; [] for no hand-in. */
	readonly acceptance: readonly string[];
	readonly lines: readonly TimelineLineView[];
};

/** The drill-down shows at most this many files of a worktree's diff stat (the rest counted). */
const STAT_LINES = 5;

/** A worktree task's lines: its branch, path and change, then the diff stat (`src/a.ts | +12 -3`). Ledger text: made terminal-safe. */
function worktreeLines(task: Task | undefined): string[] {
	const worktree = task?.worktree;
	if (!worktree) return [];
	const change = worktree.change;
	const size = change ? changeSize(change.files, change.added, change.removed) : 'not measured yet';
	const base = worktree.base ? ` from ${worktree.base.slice(0, 7)}` : '';
	const files = (change?.stat ?? []).map(file =>
		file.added === null ? `${file.path} | binary` : `${file.path} | +${file.added} -${file.removed ?? 0}`,
	);
	const more = files.length - STAT_LINES + (change?.more ?? 0);
	return [
		`${worktree.branch}${base} · ${size} · ${worktree.path}`,
		...files.slice(0, STAT_LINES).map(line => `  ${line}`),
		...(more > 0 ? [`  ${more} more file${more === 1 ? '' : 's'}`] : []),
	].map(line => terminalSafe(line));
}

const clock = (at: number): string => new Date(at).toISOString().slice(11, 19);

const isContract = (type: string): boolean => type.startsWith('contract.');
const isEvidence = (type: string): boolean =>
	type.startsWith('evidence.') || type.startsWith('handoff.') || type.includes('hand_in');

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The contract lines of the drill-down: the contract a claim took (its file, kind, checks and
 * acceptors, from `claim.taken`), the contract or brief a wrapped run was given, and any
 * `contract.*` event. Ledger text: made terminal-safe.
 */
function contractLines(events: readonly LedgerEvent[]): string[] {
	const lines: string[] = [];
	for (const event of events) {
		if (event.type === EventType.claimTaken) {
			const {contract, kind, holder, checks, acceptors} = event.data;
			const who = acceptors ? Object.entries(acceptors).map(([role, name]) => `${role}: ${name}`) : [];
			lines.push(
				terminalSafe(
					`${contract ?? 'a contract'}${kind ? ` (${kind})` : ''} taken by ${holder ?? 'unknown'}` +
						(checks ? ` · ${plural(checks.length, 'check')}` : '') +
						(who.length > 0 ? ` · acceptors ${who.join(', ')}` : ''),
				),
			);
		} else if (event.type === EventType.registered && (event.data.contract || event.data.brief)) {
			const given = event.data.contract ? `contract ${event.data.contract}` : `brief ${event.data.brief ?? ''}`;
			lines.push(terminalSafe(`run with ${given}`));
		} else if (isContract(event.type)) lines.push(describeEvent(event));
	}
	return lines;
}

/** What an evidence document says at a glance: its acceptance lines and keys, never its whole text. */
function evidenceSummary(evidence: unknown): string {
	if (evidence === null || typeof evidence !== 'object' || Array.isArray(evidence)) return '';
	const record = evidence as Record<string, unknown>;
	const acceptance = Array.isArray(record['acceptance']) ? record['acceptance'].length : null;
	const keys = Object.keys(record).filter(key => key !== 'acceptance');
	return [acceptance === null ? null : plural(acceptance, 'acceptance line'), keys.length > 0 ? keys.join(', ') : null]
		.filter(part => part !== null)
		.join(' · ');
}

/** The evidence lines: each hand-in's evidence file and what it holds, and `evidence.*` events. */
function evidenceLines(events: readonly LedgerEvent[]): string[] {
	const lines: string[] = [];
	for (const event of events) {
		if (event.type === EventType.claimHandedIn) {
			const summary = evidenceSummary(event.data.evidence);
			lines.push(
				terminalSafe(
					`${event.data.evidenceFile ?? 'evidence'}${summary ? ` (${summary})` : ''}, handed in for ${event.data.acceptor ?? 'its acceptor'}`,
				),
			);
		} else if (isEvidence(event.type)) lines.push(describeEvent(event));
	}
	return lines;
}

/** Builds the drill-down from a task's events, heartbeats folded into one line per run. */
export function selectTimeline(
	task: Task | undefined,
	events: readonly LedgerEvent[],
	now: number,
	stallSeconds?: number,
	width?: number,
): TimelineView {
	const lines = foldHeartbeats(events).flatMap((entry): TimelineLineView[] => {
		if (entry.kind === 'heartbeats') {
			const span = entry.to - entry.from;
			return [
				{
					key: `hb-${entry.from}`,
					time: clock(entry.from),
					text: `${entry.count} heartbeat${entry.count === 1 ? '' : 's'}${span > 0 ? ` over ${formatDuration(span)}` : ''}`,
					isFolded: true,
				},
			];
		}
		return [
			{
				key: String(entry.event.seq),
				time: clock(entry.event.at),
				text: `${entry.event.source}: ${describeEvent(entry.event)}`,
				isFolded: false,
			},
		];
	});
	return {
		row: task ? toRowView(task, now, stallSeconds) : null,
		contract: contractLines(events),
		evidence: evidenceLines(events),
		worktree: worktreeLines(task),
		acceptance: acceptanceLinesView(events),
		lines: width === undefined ? lines : lines.flatMap(line => wrapLine(line, width)),
	};
}

/** The indent and clock before an event's text (`  12:00:00  `), and the continuation lines' indent. */
const LINE_LEAD = 12;

/** A line longer than the screen goes on over continuation lines, so nothing of it is lost (a held call's arguments). */
function wrapLine(line: TimelineLineView, width: number): TimelineLineView[] {
	const [first = '', ...rest] = wrapCells(line.text, Math.max(20, width - LINE_LEAD - 1));
	return [
		{...line, text: first},
		...rest.map((text, index) => ({key: `${line.key}+${index + 1}`, time: ' '.repeat(8), text, isFolded: line.isFolded})),
	];
}

/** The slice of timeline lines that fits `height` from `scroll`, clamped so the end stays reachable. */
export function windowTimeline(
	lines: readonly TimelineLineView[],
	scroll: number,
	height: number,
): {lines: readonly TimelineLineView[]; start: number} {
	const start = Math.max(0, Math.min(scroll, lines.length - height));
	return {lines: lines.slice(start, start + height), start};
}
