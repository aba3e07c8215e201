import {explainTask, signalLine, type Explanation, type ProcessCheck} from '../../core/explain.ts';
import {formatDuration} from '../../core/format.ts';
import {pidFate} from '../../core/process-tree.ts';
import {loadQueueEntry} from '../../ledger/queue.ts';
import {readProcess} from '../../producers/proc-table.ts';
import {processRecordOf} from '../../producers/task-process.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom explain TASK [--json] [--ledger PATH]
  For each thing the board shows about a task (status, health, PID, progress, tokens, lane, queue),
  the signal that set it, which producer sent it and how old it is; 'disputed' where two disagree.
  TASK is an id, a unique id prefix, or a session id. JSON shape: docs/snapshot.md.`;

function check(pid: number | null, startTime: number | null, at: number): ProcessCheck | null {
	return pid === null ? null : {pid, fate: pidFate(startTime, readProcess(pid)), at};
}

function printText(explanation: Explanation, now: number): string {
	const {task} = explanation;
	const lines = [`${task.id}  ${task.title ?? '—'}${explanation.isDisputed ? '  (disputed)' : ''}`];
	for (const item of explanation.facts) {
		lines.push(`${item.field.padEnd(9)}${item.shows}  [${item.basis}]`);
		for (const signal of item.signals) lines.push(`           ${signalLine(signal, now, formatDuration)}`);
		if (item.note) lines.push(`           ${item.note}`);
	}
	return lines.join('\n');
}

/** `controlroom explain TASK`: reads the task's events, its queue entry and the process table now. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('explain', argv, {json: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	const ref = positionals[0];
	if (ref === undefined || positionals.length > 1) throw new CliError('explain: expected one TASK', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const task = ledger.reader.resolveTask(ref);
		if (!task) throw new CliError(`explain: no task '${ref}' in ${ledger.path}`);
		const now = Date.now();
		const record = processRecordOf(ledger, task);
		const explanation = explainTask({
			task,
			events: ledger.reader.eventsOf(task.id),
			now,
			queueEntry: loadQueueEntry(ledger.reader, now, task.id),
			process: record ? check(record.pid, record.startTime, now) : null,
			wrapper: record ? check(record.wrapperPid, record.wrapperStartTime, now) : null,
		});
		if (values.json) {
			const facts = explanation.facts.map(item => ({
				...item,
				signals: item.signals.map(signal => ({...signal, at: new Date(signal.at).toISOString(), ageMs: now - signal.at})),
			}));
			out(
				JSON.stringify(
					{
						version: 1,
						generatedAt: new Date(now).toISOString(),
						task: explanation.task,
						isDisputed: explanation.isDisputed,
						facts,
					},
					null,
					2,
				),
			);
		} else {
			out(printText(explanation, now));
		}
		return 0;
	} finally {
		ledger.close();
	}
}
