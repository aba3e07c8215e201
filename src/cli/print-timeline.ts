import {formatKnown, formatProgress, formatTokens} from '../core/format.ts';
import type {SnapshotTask} from '../core/snapshot.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {describeEvent, type TimelineEntry} from '../core/timeline.ts';

const time = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** One line a timeline entry, heartbeats folded. */
export function timelineLine(entry: TimelineEntry): string {
	if (entry.kind === 'heartbeats') {
		return `${time(entry.from)}  ♥ ${entry.count} heartbeat${entry.count === 1 ? '' : 's'} until ${time(entry.to).slice(11)}`;
	}
	return `${time(entry.event.at)}  ${describeEvent(entry.event)}`;
}

/** A task's header and its timeline, as text; every ledger text is shown escaped (describeEvent is already safe). */
export function printTimelineText(task: SnapshotTask, entries: readonly TimelineEntry[]): string {
	const header = [
		`${task.id}  ${task.title ?? '—'}${task.host ? `  on ${task.host}` : ''}`,
		`source ${task.source}  status ${task.status}${task.health ? `/${task.health}` : ''}  pid ${formatKnown(task.pid)}  exit ${formatKnown(task.exitCode)}${task.signal ? `  signal ${task.signal}` : ''}`,
		`cwd ${task.cwd ?? 'unknown'}  ${formatProgress(task.progress)}  tokens ${formatTokens(task.tokens, task.budget, task.tokens.isPartial)}`,
		...(task.error ? [`error ${task.error}`] : []),
	].map(terminalSafe);
	return [...header, '', ...entries.map(timelineLine)].join('\n');
}
