import {passkeyAnswerLine, passkeyAnswersOf} from '../../core/passkey/answer-lines.ts';
import {familyLines, familyNames} from '../../core/family.ts';
import {traceOfTask} from '../../core/otel/trace-chain.ts';
import {taskSpanId} from '../../core/otel/trace-context.ts';
import {traceFactsOf} from '../../ledger/trace-facts.ts';
import {explainTask, signalLine, type Explanation, type ProcessCheck} from '../../core/explain.ts';
import {formatDuration} from '../../core/format.ts';
import {pidFate, stampFate} from '../../core/process-tree.ts';
import {loadQueueEntry} from '../../ledger/queue.ts';
import {readProcess} from '../../producers/proc-table.ts';
import {answersTo, recordedStampsOf} from '../../producers/agent-tree.ts';
import {processRecordOf} from '../../producers/task-process.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {parseCommandArgs, positiveInt, taskArgument} from '../args.ts';
import {commandSettings} from '../config-file.ts';
import {openCommandLedger, out, outJson, outText, resolveForCommand} from '../context.ts';
import {CliError} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {AT_HELP, momentOf, parseAt} from '../at-flag.ts';
import {readerAsOf} from '../../ledger/reader-as-of.ts';

export const help: CommandHelp = {
	synopsis: ['explain TASK [--json] [--stall SECONDS] [--at TIME|SEQ]'],
	description: `For each thing the board shows about a task (status, health, PID, progress, tokens, lane, queue),
the signal that set it: the ledger event, which producer sent it and how old it is, or the process
table read now. Where two signals disagree it says 'disputed' and names both. Opens the ledger
read-only.`,
	options: [
		AT_HELP,
		['--json', 'explain JSON version 1 (docs/snapshot.md)'],
		[
			'--stall SECONDS',
			"the agent's silence after which a running task is stalled (default 600, or CONTROLROOM_STALL_SECONDS, or the config file's stallSeconds; a task's own wins)",
		],
	],
	exits: [
		['0', 'printed'],
		['1', 'no such task, or the ledger cannot be read'],
		[
			'64',
			'bad command line (no TASK, an empty one, one that matches several tasks, a bad --stall), or no ledger at --ledger PATH',
		],
		['78', 'the config file or CONTROLROOM_STALL_SECONDS is wrong (docs/config.md)'],
	],
	examples: [
		['controlroom explain w-3f2c', 'why the task whose id starts with w-3f2c shows what it shows'],
		['controlroom explain 5f1e9c2a-session-id --json', 'a Claude Code session, as JSON'],
	],
};

function check(pid: number | null, startTime: number | null, at: number): ProcessCheck | null {
	return pid === null ? null : {pid, fate: pidFate(startTime, readProcess(pid)), at};
}

function printText(explanation: Explanation, now: number): string {
	const {task} = explanation;
	const lines = [`${task.id}  ${task.title ?? '—'}${explanation.isDisputed ? '  (disputed)' : ''}`];
	for (const item of explanation.facts) {
		lines.push(`${item.field.padEnd(Math.max(9, item.field.length + 1))}${item.shows}  [${item.basis}]`);
		for (const signal of item.signals) lines.push(`           ${signalLine(signal, now, formatDuration)}`);
		if (item.note) lines.push(`           ${item.note}`);
	}
	// Titles, reasons and notes are ledger text, which agents wrote: escaped, line by line.
	return lines.map(terminalSafe).join('\n');
}

/** `controlroom explain TASK`: reads the task's events, its queue entry and the process table now. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('explain', argv, {
		json: {type: 'boolean'},
		stall: {type: 'string'},
		at: {type: 'string'},
	});
	const ref = taskArgument('explain', positionals);
	const at = parseAt(values.at);
	const {stallSeconds} = commandSettings({stallSeconds: positiveInt('stall', values.stall)});
	const ledger = openCommandLedger(values.ledger, {mode: 'read'});
	try {
		const moment = at === undefined ? null : momentOf(ledger.reader, at);
		const reader = moment === null ? ledger.reader : readerAsOf(ledger.reader, moment);
		const named = resolveForCommand('explain', ledger, ref);
		const task = named === undefined ? undefined : reader.task(named.id);
		if (!task)
			throw new CliError(
				named && moment
					? `explain: task '${ref}' was not in ${ledger.path} yet at seq ${moment.seq}`
					: `explain: no task '${ref}' in ${ledger.path}`,
			);
		const now = moment?.now ?? Date.now();
		// The process table can only be read now: a past moment is explained from the ledger alone.
		const record = moment === null ? processRecordOf(ledger, task) : null;
		const explanation = explainTask({
			task,
			events: reader.eventsOf(task.id),
			now,
			stallSeconds,
			queueEntry: loadQueueEntry(reader, now, task.id),
			process: record ? check(record.pid, record.startTime, now) : null,
			wrapper: record ? check(record.wrapperPid, record.wrapperStartTime, now) : null,
			recorded:
				moment === null
					? recordedStampsOf(ledger, task).map(stamp => ({
							pid: stamp.pid,
							from: stamp.from,
							fate: stampFate(stamp, readProcess(stamp.pid), (agent, process) => answersTo(agent, process)),
						}))
					: [],
		});
		const parent = task.parentId === null ? null : (reader.task(task.parentId) ?? null);
		const family = familyNames(task, parent, reader.helpersOf(task.id));
		// The trace its spans are exported in, and the TRACEPARENT its agent got (docs/otel.md).
		const found = traceOfTask(task.id, id => traceFactsOf(ledger, id));
		const passkeyAnswers = passkeyAnswersOf(reader.eventsOf(task.id));
		const trace = {traceId: found.traceId, spanId: taskSpanId(task.id), parentSpanId: found.parentSpanId};
		if (values.json) {
			const facts = explanation.facts.map(item => ({
				...item,
				signals: item.signals.map(signal => ({...signal, at: new Date(signal.at).toISOString(), ageMs: now - signal.at})),
			}));
			outJson(
				terminalSafeJson(
					{
						version: 1,
						generatedAt: new Date(now).toISOString(),
						task: explanation.task,
						isDisputed: explanation.isDisputed,
						family,
						facts,
						trace,
						passkeyAnswers,
					},
					2,
				),
			);
		} else {
			const [heading = '', ...rest] = printText(explanation, now).split('\n');
			outText([heading, ...familyLines(family).map(line => terminalSafe(line)), ...rest].join('\n'));
			out(`trace    ${trace.traceId}  [span ${trace.spanId}${trace.parentSpanId ? `, parent ${trace.parentSpanId}` : ''}]`);
			// Who answered with a passkey, from the signed record (docs/passkeys.md); names are a person's, escaped all the same.
			for (const answer of passkeyAnswers) out(terminalSafe(passkeyAnswerLine(answer)));
		}
		return 0;
	} finally {
		ledger.close();
	}
}
