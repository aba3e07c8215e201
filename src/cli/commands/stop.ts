import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {stopTask} from '../../producers/stop.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom stop TASK [--grace SECONDS] [--json] [--ledger PATH]
  Sends SIGTERM to the task's process group, waits up to --grace seconds (default 5), then SIGKILL,
  confirms no process of the group is left, and records the task as stopped. A task whose PID is
  unknown cannot be stopped. Exit 0 stopped, 1 could not stop (the message says why).`;

/** `controlroom stop TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('stop', argv, {grace: {type: 'string'}, json: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length !== 1) throw new CliError('stop: takes exactly one TASK (id, id prefix or session id)', USAGE_EXIT);
	let graceMs: number | undefined;
	if (values.grace !== undefined) {
		const seconds = Number(values.grace);
		if (!Number.isFinite(seconds) || seconds < 0)
			throw new CliError(`--grace: expected seconds (0 or more), got '${values.grace}'`, USAGE_EXIT);
		graceMs = seconds * 1000;
	}
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const result = await stopTask(ledger, positionals[0] as string, graceMs === undefined ? {} : {graceMs});
		if (values.json) out(terminalSafeJson(result));
		else if (result.outcome === 'stopped') out(terminalSafe(result.message));
		else process.stderr.write(`controlroom: ${terminalSafe(result.message)}\n`);
		return result.outcome === 'stopped' ? 0 : 1;
	} finally {
		ledger.close();
	}
}
