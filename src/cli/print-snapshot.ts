import {layoutColumns, layoutHeadings, layoutRow, type TaskRowCells} from '../core/board/row-layout.ts';
import {costCell, worktreeCell} from '../core/board/selectors.ts';
import {cellWidth} from '../core/cell-width.ts';
import {summarizeArgs} from '../core/effects/view.ts';
import {helpersSummary} from '../core/family.ts';
import {formatDuration, formatKnown, formatProgress, formatTokens, UNKNOWN} from '../core/format.ts';
import {LANE_TITLES, LANE_WORDS, statusLabel} from '../core/labels.ts';
import {BOARD_LANES, type Snapshot, type SnapshotTask} from '../core/snapshot.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {cutForLine} from '../core/text-limits.ts';

/** A parent's title as the board writes it folded: `▸ 3 helpers: 1 active, 2 ended · fix the parser`. */
function treeTitle(task: SnapshotTask): string {
	const title = task.title === null ? '—' : terminalSafe(task.title);
	const summary = helpersSummary({helpersActive: task.helpersActive ?? 0, helpersTotal: task.helpersTotal ?? 0});
	return summary === null ? title : `▸ ${summary} · ${title}`;
}

/** A snapshot task as the board's row cells, so the text and the board write a task the same way. */
function rowOf(task: SnapshotTask, now: number): TaskRowCells {
	return {
		shownId: terminalSafe(task.id),
		host: task.host === null ? null : terminalSafe(task.host),
		pending: null,
		title: treeTitle(task),
		...(task.worktree ? {worktree: worktreeCell(task.worktree)} : {}),
		source: terminalSafe(task.source),
		status: task.state?.startsWith('active (') ? task.state : statusLabel(task),
		age: task.startedAt ? formatDuration(now - Date.parse(task.startedAt)) : UNKNOWN,
		seen: `${formatDuration(task.idleSeconds * 1000)} ago`,
		progress: formatProgress(task.progress),
		tokens: formatTokens(task.treeTokens ?? task.tokens, task.budget, (task.treeTokens ?? task.tokens).isPartial),
		cost: task.treeCost ? costCell(task.treeCost) : UNKNOWN,
		pid: formatKnown(task.pid),
	};
}

/** How the text is laid out: the terminal's width when there is one, and the ledger it names. */
export type SnapshotTextOptions = {
	/** Columns to fill; a CI log or a pipe gets DEFAULT_TEXT_WIDTH. */
	readonly width?: number;
	/** The ledger read, named in the first line (a fleet's server, never its password). */
	readonly ledger?: string;
};

/** A pipe or a log has no width: wide enough for every column and a readable title. */
export const DEFAULT_TEXT_WIDTH = 160;

/** The board, once, as plain text for a terminal without a TTY or a CI log; ledger text is shown escaped. */
export function printSnapshotText(snapshot: Snapshot, options: SnapshotTextOptions = {}): string {
	const now = Date.parse(snapshot.generatedAt);
	const width = options.width ?? DEFAULT_TEXT_WIDTH;
	// Helpers under a listed parent are folded into its row, as on the board.
	const listed = new Set(snapshot.tasks.map(task => task.id));
	const shown = snapshot.tasks.filter(task => task.parentId === null || task.parentId === task.id || !listed.has(task.parentId));
	const byLane = new Map(BOARD_LANES.map(lane => [lane, shown.filter(task => task.lane === lane)]));
	const fleet = snapshot.hosts;
	const where = options.ledger === undefined ? '' : `  ${terminalSafe(options.ledger)}`;
	const hostsLine =
		fleet === undefined
			? ''
			: `  ${fleet.length} host${fleet.length === 1 ? '' : 's'}: ${fleet.map(host => terminalSafe(host.name)).join(', ') || 'none yet'}`;
	const lines = [
		`controlroom snapshot ${snapshot.generatedAt}${where}${hostsLine}`,
		// The same counts as the lanes below (and the board's header): one number per lane.
		[
			...BOARD_LANES.map(lane => `${LANE_WORDS[lane]} ${byLane.get(lane)?.length ?? 0}`),
			`needs you ${snapshot.queue.total}`,
			...(snapshot.unseen > 0 ? [`unseen ${snapshot.unseen}`] : []),
		].join(' · '),
	];
	const rows = shown.map(task => rowOf(task, now));
	const ids = rows.reduce((widest, row) => Math.max(widest, cellWidth(row.shownId)), 8);
	const columns = layoutColumns(rows, width - 2, true, ids, fleet !== undefined);
	const rowOfTask = new Map(shown.map((task, index) => [task, rows[index] as TaskRowCells]));
	if (rows.length > 0) lines.push('', `  ${layoutHeadings(columns).slice(2)}`);
	for (const lane of BOARD_LANES) {
		const tasks = byLane.get(lane) ?? [];
		lines.push('', `${LANE_TITLES[lane]} (${tasks.length})`);
		if (tasks.length === 0) lines.push('  none');
		for (const task of tasks) {
			const row = layoutRow(rowOfTask.get(task) as TaskRowCells, columns);
			// `●`: finished since the snapshot's person last looked, as the board marks it.
			lines.push(`${task.seen === false ? '● ' : '  '}${row.before}${row.status}${row.after}`.trimEnd());
		}
	}
	lines.push('', `NEEDS YOU (${snapshot.queue.total})`);
	if (snapshot.queue.total === 0) lines.push('  nothing needs you');
	for (const lane of snapshot.queue.lanes) {
		if (lane.total === 0) continue;
		lines.push(`  ${lane.name}:`);
		for (const item of lane.items) {
			lines.push(
				`    ${terminalSafe(item.taskId).padEnd(16)} waiting ${formatDuration(item.waitingSeconds * 1000).padEnd(6)} ${terminalSafe(cutForLine(item.reason))}`,
			);
		}
		if (lane.total > lane.items.length) lines.push(`    +${lane.total - lane.items.length} more`);
	}
	lines.push('', `REVIEWS (${snapshot.verdicts.length})`);
	if (snapshot.verdicts.length === 0) lines.push('  no verdicts');
	for (const verdict of snapshot.verdicts) {
		const fixes = verdict.verdict === 'FIX' ? ` (${verdict.fixes.length})` : '';
		const label = verdict.isDisagreement ? '  [disagree]' : '';
		lines.push(
			`  ${verdict.taskId.padEnd(16)} round ${verdict.round} reviewer ${verdict.reviewer} ${`${verdict.verdict}${fixes}`.padEnd(10)} ` +
				`${formatDuration(now - Date.parse(verdict.at))} ago  review ${verdict.outcome}${label}`,
		);
	}
	const open = snapshot.disagreements.filter(disagreement => disagreement.isOpen);
	lines.push('', `DISAGREEMENTS (${open.length} open)`);
	if (snapshot.disagreements.length === 0) lines.push('  none');
	for (const disagreement of snapshot.disagreements) {
		lines.push(
			`  ${disagreement.taskId.padEnd(16)} ${disagreement.isOpen ? 'open    ' : 'answered'} ${terminalSafe(disagreement.agents.join(' vs '))}  ${terminalSafe(disagreement.reason)}`,
		);
	}
	const effects = snapshot.effects;
	lines.push('', `HELD EFFECTS (${effects.filter(effect => effect.state === 'held').length})`);
	if (effects.length === 0) lines.push('  none');
	for (const effect of effects) {
		const state = effect.state === 'finished' && effect.isError ? 'failed' : effect.state;
		lines.push(
			`  ${effect.order.padEnd(12)} ${state.padEnd(15)} ${terminalSafe(effect.id).padEnd(28)} ${terminalSafe(summarizeArgs(effect.args, 70))}`,
		);
	}
	// Every line, once more at the edge: ids, agents' names and reasons are ledger text (escaping is idempotent).
	return lines.map(terminalSafe).join('\n');
}
