import {closeSync, constants, fstatSync, openSync, readSync, type Stats} from 'node:fs';
import {EventType, type NewEvent} from '../../core/events.ts';
import {KEPT_LINES, logTail} from '../../core/reactions/log-tail.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out, resolveForCommand} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {loadReactionRules} from '../reactions-file.ts';

export const help: CommandHelp = {
	synopsis: ['ci report --task TASK --status failed|passed [--log FILE] [--url URL] [--rules FILE] [--dry-run]'],
	description: `Records a CI run's result for the task that owns the change (a ci.reported event),
keeping the last ${KEPT_LINES} lines of its log as plain text (escape codes taken out; a log of any size
is read from its end). Then the reaction rules run at once (docs/reactions.md): a failed report is a
ci-failed event, and a rule may send the log's last lines to the task. --dry-run writes nothing and
prints what would fire.`,
	options: [
		['--task TASK', 'the task the run is about (an id, a unique prefix, a session id)'],
		['--status STATUS', 'failed or passed'],
		['--log FILE', "the run's log: a regular file (a FIFO, a folder or a device is refused)"],
		['--url URL', 'where the run is (shown to the agent and in the timeline)'],
		['--rules FILE', 'the rule file (default: $CONTROLROOM_REACTIONS, else reactions.yaml beside the config file)'],
		['--dry-run', 'record nothing, send nothing: print what would fire'],
	],
	exits: [
		['0', 'recorded (and the rules ran); --dry-run: printed'],
		['1', 'no such task'],
		['64', 'bad command line: no --task, a --status other than failed or passed, a --log that is not a readable regular file'],
		['78', 'the rule file is wrong (one line; controlroom reactions check lists every problem)'],
	],
	examples: [
		['controlroom ci report --task c-91ab --status failed --log ci.log', "send the log's end to c-91ab, if a rule says so"],
		['controlroom ci report --task c-91ab --status failed --log ci.log --dry-run', 'what would fire'],
	],
	choices: {STATUS: ['failed', 'passed']},
};

/** At most this much of a log's end is read: 500 lines of 400 characters fit with room to spare. */
const TAIL_BYTES = 512 * 1024;
/** A URL is a link, not a document. */
const MAX_URL_CHARS = 2000;

function kindOf(stat: Stats): string {
	if (stat.isDirectory()) return 'a folder';
	if (stat.isFIFO()) return 'a FIFO';
	if (stat.isSocket()) return 'a socket';
	if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
	return 'not a regular file';
}

/** A log's end as plain lines, how many lines it has, and its size; one line and exit 64 when it cannot be read. */
export function readLog(path: string): {lines: string[]; total: number; bytes: number} {
	const shown = terminalSafe(path);
	let fd: number;
	try {
		// Without blocking: a FIFO put where the log should be is refused, never waited on.
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? 'error';
		const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code;
		throw new CliError(`--log ${shown}: cannot be read (${why})`, USAGE_EXIT);
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new CliError(`--log ${shown}: ${kindOf(stat)}, not a file`, USAGE_EXIT);
		// Lines are counted over the whole file in chunks; only the end is kept.
		const chunk = Buffer.alloc(1024 * 1024);
		let newlines = 0;
		let size = 0;
		let lastByte = -1;
		for (;;) {
			const read = readSync(fd, chunk, 0, chunk.length, size);
			if (read === 0) break;
			for (let index = 0; index < read; index += 1) if (chunk[index] === 0x0a) newlines += 1;
			lastByte = chunk[read - 1] ?? -1;
			size += read;
		}
		const start = Math.max(0, size - TAIL_BYTES);
		const tail = Buffer.alloc(size - start);
		const read = tail.length === 0 ? 0 : readSync(fd, tail, 0, tail.length, start);
		const text = new TextDecoder('utf-8').decode(tail.subarray(0, read));
		const total = size === 0 ? 0 : newlines + (lastByte === 0x0a ? 0 : 1);
		return {lines: logTail(text, {isCut: start > 0}), total, bytes: size};
	} finally {
		closeSync(fd);
	}
}

async function report(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('ci report', argv, {
		task: {type: 'string'},
		status: {type: 'string'},
		log: {type: 'string'},
		url: {type: 'string'},
		rules: {type: 'string'},
		'dry-run': {type: 'boolean'},
	});
	if (positionals.length > 0) throw new CliError(`ci report: unexpected '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	if (values.task === undefined || values.task.trim() === '')
		throw new CliError('ci report: --task TASK is required', USAGE_EXIT);
	const status = values.status;
	if (status !== 'failed' && status !== 'passed')
		throw new CliError(`ci report: --status must be failed or passed, not '${terminalSafe(status ?? '')}'`, USAGE_EXIT);
	if (values.url !== undefined && (values.url.length > MAX_URL_CHARS || terminalSafe(values.url) !== values.url))
		throw new CliError(`--url: not a link (control characters, or over ${MAX_URL_CHARS} characters)`, USAGE_EXIT);
	const log = values.log === undefined ? null : readLog(values.log);
	const rules = loadReactionRules(values.rules);
	const isDryRun = values['dry-run'] === true;
	const ledger = openCommandLedger(values.ledger, {mode: isDryRun ? 'read' : 'existing'});
	try {
		const task = resolveForCommand('ci report', ledger, values.task);
		if (task === undefined) throw new CliError(`ci report: no task '${terminalSafe(values.task)}' in the ledger`);
		const now = Date.now();
		const event: NewEvent & {type: 'ci.reported'} = {
			taskId: task.id,
			type: EventType.ciReported,
			at: now,
			source: 'cli',
			data: {
				status,
				logLines: log?.lines ?? [],
				logTotalLines: log?.total ?? null,
				logBytes: log?.bytes ?? null,
				log: values.log ?? null,
				url: values.url ?? null,
			},
		};
		const {ciTrigger, deliveryLine, firingLine, runReactions} = await import('../../producers/reactions.ts');
		const {sendReaction} = await import('../../gates/reaction-send.ts');
		const kept = log === null ? 'no log' : `log ${log.total} lines, last ${log.lines.length} kept`;
		let seq = 0;
		if (isDryRun) out(`would record: ci ${status} on ${task.id} (${kept})`);
		else {
			seq = ledger.writer.append([event]).lastSeq;
			out(`recorded: ci ${status} on ${task.id} (${kept})`);
		}
		const extra = isDryRun ? [ciTrigger({...event, seq})].filter(trigger => trigger !== null) : [];
		const result = await runReactions(ledger, {rules: rules.rules, deliver: sendReaction(ledger), dryRun: isDryRun, extra, now});
		for (const firing of result.firings) out(terminalSafe(firingLine(firing, isDryRun)));
		for (const delivery of result.deliveries) out(terminalSafe(deliveryLine(delivery)));
		if (rules.rules.length === 0) out('no reaction rules: nothing reacts (docs/reactions.md)');
		return 0;
	} finally {
		ledger.close();
	}
}

/** `controlroom ci report ...`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'report') return report(rest);
	throw new CliError(`ci: expected report, not '${terminalSafe(verb ?? '')}' (controlroom ci --help)`, USAGE_EXIT);
}
