import {summarizeArgs} from '../core/effects/view.ts';
import {formatDuration, formatKnown, formatProgress, formatTokens, UNKNOWN} from '../core/format.ts';
import {LANE_TITLES, statusLabel} from '../core/labels.ts';
import {BOARD_LANES, type Snapshot, type SnapshotTask} from '../core/snapshot.ts';
import {terminalSafe} from '../core/terminal-text.ts';

function taskLine(task: SnapshotTask, now: number): string {
	const started = task.startedAt ? formatDuration(now - Date.parse(task.startedAt)) : UNKNOWN;
	return [
		terminalSafe(task.id).padEnd(16),
		(task.title === null ? '—' : terminalSafe(task.title)).slice(0, 32).padEnd(32),
		terminalSafe(task.source).padEnd(13),
		statusLabel(task).padEnd(18),
		`age ${started}`.padEnd(10),
		`last seen ${formatDuration(task.idleSeconds * 1000)} ago`.padEnd(20),
		formatProgress(task.progress).padEnd(22),
		`tokens ${formatTokens(task.tokens, task.budget, task.tokens.isPartial)}`.padEnd(22),
		`pid ${formatKnown(task.pid)}`,
	].join(' ');
}

/** The board, once, as plain text for a terminal without a TTY or a CI log; ledger text is shown escaped. */
export function printSnapshotText(snapshot: Snapshot): string {
	const now = Date.parse(snapshot.generatedAt);
	const counts = snapshot.counts;
	const lines = [
		`controlroom snapshot ${snapshot.generatedAt}`,
		`running ${counts.running}  stalled ${counts.stalled}  lost ${counts.lost}  untracked ${counts.untracked}  ` +
			`registered ${counts.registered}  done ${counts.done}  failed ${counts.failed}  stopped ${counts.stopped}  ` +
			`vanished ${counts.vanished}`,
	];
	for (const lane of BOARD_LANES) {
		const tasks = snapshot.tasks.filter(task => task.lane === lane);
		lines.push('', `${LANE_TITLES[lane]} (${tasks.length})`);
		if (tasks.length === 0) lines.push('  none');
		for (const task of tasks) lines.push(`  ${taskLine(task, now)}`);
	}
	lines.push('', `NEEDS YOU (${snapshot.queue.total})`);
	if (snapshot.queue.total === 0) lines.push('  nothing needs you');
	for (const lane of snapshot.queue.lanes) {
		if (lane.total === 0) continue;
		lines.push(`  ${lane.name}:`);
		for (const item of lane.items) {
			lines.push(
				`    ${terminalSafe(item.taskId).padEnd(16)} waiting ${formatDuration(item.waitingSeconds * 1000).padEnd(6)} ${terminalSafe(item.reason)}`,
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
	return lines.join('\n');
}
