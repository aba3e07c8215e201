import {EventType, type EventOfType, type EventTypeName} from '../core/events.ts';
import {STATUSES, type Status} from '../core/status.ts';
import {applyEvent, type Task} from '../core/task.ts';
import type {LedgerReader} from './reader.ts';

/**
 * A moment of the ledger: the last event that had arrived (`seq`, 0 for none), and the time that
 * is "now" there, for health, stalls and the windows (docs/ledger.md, "The ledger at a moment").
 */
export type Moment = {readonly seq: number; readonly now: number};

/** The moment a time names: every event that had arrived by then, and that time as now. */
export function momentAtTime(reader: LedgerReader, at: number): Moment {
	return {seq: reader.seqArrivedBy(at), now: at};
}

/** The moment a seq names: the ledger up to that event, and its arrival as now. */
export function momentAtSeq(reader: LedgerReader, seq: number): Moment {
	const last = Math.min(seq, reader.lastSeq());
	return {seq: last, now: reader.arrivalOf(last) ?? 0};
}

const byNewest = (a: Task, b: Task): number => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Every task as it was right after event `seq`: the same fold the writer ran (applyEvent, each
 * event at the time it arrived), so a task is exactly the row the projection held then. A task
 * with no event after `seq` is its row now; only those touched since are folded again from their
 * events, so a moment near now costs little.
 */
export function tasksAsOf(reader: LedgerReader, seq: number): Map<string, Task> {
	const touched = new Set(reader.taskIdsAfter(seq));
	const tasks = new Map<string, Task>();
	for (const task of reader.tasksForView(null)) {
		if (!touched.has(task.id)) tasks.set(task.id, task);
	}
	for (const id of touched) {
		let task: Task | undefined;
		for (const {event, arrivedAt} of reader.eventsArrivedOf(id, seq)) {
			if (event.type === 'foreign') continue;
			task = applyEvent(task, event, event.seq, arrivedAt ?? undefined);
		}
		if (task !== undefined) tasks.set(id, task);
	}
	return tasks;
}

const upTo =
	(seq: number) =>
	<E extends {readonly seq: number}>(events: readonly E[]): E[] =>
		events.filter(event => event.seq <= seq);

/**
 * The ledger's reads as they would have answered right after event `moment.seq`: task reads from
 * the fold as of then (tasksAsOf), event reads cut at that seq. Every view made from a reader
 * (snapshot, timeline, explain, the queue, a board round through the read port) is then the view
 * of that moment, by the same code as now. What a past read cannot know is the process table: the
 * callers ask no process then. The rows are folded once, when made.
 */
export function readerAsOf(reader: LedgerReader, moment: Moment): LedgerReader {
	const {seq} = moment;
	const tasks = tasksAsOf(reader, seq);
	const cut = upTo(seq);
	const all = (): Task[] => [...tasks.values()].sort(byNewest);
	const latest = <T extends EventTypeName>(taskId: string, types: readonly T[], limit: number): EventOfType<T>[] =>
		cut(reader.eventsOf(taskId))
			.filter((event): event is EventOfType<T> => (types as readonly string[]).includes(event.type))
			.reverse()
			.slice(0, limit);
	return {
		...reader,
		task: id => tasks.get(id),
		resolveTask(ref) {
			if (ref.trim() === '') return undefined;
			const exact = tasks.get(ref);
			if (exact) return exact;
			const found = reader.resolveTask(ref);
			return found === undefined ? undefined : tasks.get(found.id);
		},
		tasksForView: endedSince => all().filter(task => endedSince === null || task.endedAt === null || task.endedAt >= endedSince),
		tasksWithStatus: statuses => all().filter(task => statuses.includes(task.status)),
		tasksWithPid: pid => all().filter(task => task.pid === pid),
		statusCounts() {
			const counts = Object.fromEntries(STATUSES.map(status => [status, 0])) as Record<Status, number>;
			for (const task of tasks.values()) counts[task.status] += 1;
			return counts;
		},
		eventsSince: (afterSeq, limit) => (afterSeq >= seq ? [] : cut(reader.eventsSince(afterSeq, Math.min(limit, seq - afterSeq)))),
		eventsOf: taskId => cut(reader.eventsOf(taskId)),
		eventsOfType: (types, afterAt) => cut(reader.eventsOfType(types, afterAt)),
		spendEventsBetween: (from, until, upToSeq) => reader.spendEventsBetween(from, until, Math.min(upToSeq, seq)),
		spendEventsAfter: (afterSeq, from, until) => cut(reader.spendEventsAfter(afterSeq, from, until)),
		needsMaybeCurrent(answeredBySession) {
			// The store's need query (reader.ts), on the tasks as they were.
			return reader.eventsOfTypeUpTo([EventType.needRaised], seq).filter(need => {
				const task = tasks.get(need.taskId);
				return (
					!answeredBySession.includes(need.source) || task === undefined || (task.endedAt === null && need.at >= task.lastEventAt)
				);
			});
		},
		firstEventOf: (taskId, type) =>
			cut(reader.eventsOf(taskId)).find((event): event is EventOfType<typeof type> => event.type === type),
		latestEventsOf: latest,
		latestThreadUsage(threadId) {
			return cut(reader.eventsOfTypeUpTo([EventType.tokensReported], seq))
				.reverse()
				.find(event => (event.data as {threadId?: unknown}).threadId === threadId);
		},
		latestClaimOf(contractKey) {
			const claims = reader.eventsOfTypeUpTo([EventType.claimTaken], seq).filter(event => event.data.contractKey === contractKey);
			const last = claims.at(-1);
			return last === undefined ? null : {taskId: last.taskId, count: claims.length};
		},
		// The past has no hook waiting on it: only the live check reads this.
		editsOfLiveTasks: (tools, limit) => reader.editsOfLiveTasks(tools, limit).filter(event => event.seq <= seq),
		preToolUseOf: toolUseId => {
			const found = reader.preToolUseOf(toolUseId);
			return found !== undefined && found.seq <= seq ? found : undefined;
		},
		helpersOf(taskId) {
			const inTree = new Set([taskId]);
			const kept: Task[] = [];
			for (const task of all()
				.filter(each => each.id.startsWith(`${taskId}.`))
				.sort((a, b) => a.id.length - b.id.length)) {
				if (task.parentId === null || !inTree.has(task.parentId)) continue;
				inTree.add(task.id);
				kept.push(task);
			}
			return kept;
		},
		processReportsOf: taskId => reader.processReportsOf(taskId).filter(report => report.seq <= seq),
		lastSeq: () => seq,
		storedEventsSince: (afterSeq, limit) => cut(reader.storedEventsSince(afterSeq, limit)),
		storedEventAt: at => (at <= seq ? reader.storedEventAt(at) : undefined),
		chainRows: (afterSeq, upToSeq, limit) => reader.chainRows(afterSeq, Math.min(upToSeq, seq), limit),
		chainChunk: (afterSeq, upToSeq, limit) => reader.chainChunk(afterSeq, Math.min(upToSeq, seq), limit),
		seqArrivedBy: at => Math.min(reader.seqArrivedBy(at), seq),
		taskIdsAfter: afterSeq =>
			afterSeq >= seq ? [] : [...new Set(reader.eventsSince(afterSeq, seq - afterSeq).map(e => e.taskId))],
		eventsArrivedOf: (taskId, upToSeq) => reader.eventsArrivedOf(taskId, Math.min(upToSeq, seq)),
		eventsOfTypeUpTo: (types, upToSeq) => reader.eventsOfTypeUpTo(types, Math.min(upToSeq, seq)),
		arrivalOf: at => (at <= seq ? reader.arrivalOf(at) : null),
		tasksById: ids => ids.flatMap(id => tasks.get(id) ?? []),
	};
}
