import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {stopTask} from '../../producers/stop.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {openReadingLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['stop TASK [--grace SECONDS] [--json]'],
	description: `Sends SIGTERM to the task's process group, waits up to --grace seconds, then SIGKILL, confirms no
process of the group is left, and records the task as stopped. TASK is an id, a unique id prefix
or a session id. A task whose PID no producer reported cannot be stopped: there is nothing to
signal.`,
	options: [
		['--grace SECONDS', 'how long to wait after SIGTERM before SIGKILL (default 5; 0 kills at once)'],
		['--json', 'the result as JSON: {outcome, taskId, reason, message}'],
	],
	exits: [
		['0', 'stopped'],
		[
			'1',
			'could not stop it (the message says why: no such task, several match, already ended, PID unknown, process gone), or the ledger cannot be written',
		],
		['64', 'bad command line (no TASK, an empty one, a bad --grace), or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom stop w-3f2c', 'stops the task whose id starts with w-3f2c'],
		['controlroom stop w-3f2c --grace 0', 'kills it without waiting'],
	],
};

/** `controlroom stop TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('stop', argv, {grace: {type: 'string'}, json: {type: 'boolean'}});
	const ref = taskArgument('stop', positionals);
	let graceMs: number | undefined;
	if (values.grace !== undefined) {
		const seconds = Number(values.grace);
		if (values.grace.trim() === '' || !Number.isFinite(seconds) || seconds < 0)
			throw new CliError(`--grace: expected seconds (0 or more), got '${values.grace}'`, USAGE_EXIT);
		graceMs = seconds * 1000;
	}
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const result = await stopTask(ledger, ref, graceMs === undefined ? {} : {graceMs});
		if (values.json) out(terminalSafeJson(result));
		else if (result.outcome === 'stopped') out(terminalSafe(result.message));
		else process.stderr.write(`controlroom: ${terminalSafe(result.message)}\n`);
		return result.outcome === 'stopped' ? 0 : 1;
	} finally {
		ledger.close();
	}
}
