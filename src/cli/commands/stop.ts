import {hostName} from '../../ledger/host.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import type {FleetLedger} from '../../ledger/fleet/open-fleet.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {stopTask} from '../../producers/stop.ts';
import {parseCommandArgs, positiveSeconds, taskArgument} from '../args.ts';
import {out} from '../context.ts';
import {openReadingLedger} from '../reading-ledger.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {withFleet} from '../fleet-context.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['stop TASK [--grace SECONDS] [--json]', 'stop TASK --ledger postgres://... [--host NAME] [--wait SECONDS]'],
	description: `Sends SIGTERM to the task's process group, waits up to --grace seconds, then SIGKILL, confirms no
process of the group is left, and records the task as stopped. A task whose PID no producer reported cannot be stopped: there is nothing to
signal. On a fleet ledger (--ledger postgres://..., docs/fleet.md) the stop is a request that the
task's host carries out when its sync runs; the command waits for the host's answer.`,
	options: [
		['--grace SECONDS', 'how long to wait after SIGTERM before SIGKILL (default 5; 0 kills at once)'],
		[
			'--json',
			'the result as JSON: {outcome, taskId, reason, message} (on a fleet: {requestId, host, taskId, outcome, message})',
		],
		['--host NAME', 'on a fleet ledger: the host whose task to stop, where several hosts have a matching one'],
		['--wait SECONDS', "on a fleet ledger: how long to wait for the host's answer (default 30)"],
	],
	exits: [
		['0', 'stopped'],
		[
			'1',
			'could not stop it (the message says why: no such task, already ended, PID unknown, process gone), or the ledger cannot be written (a fleet server out of reach)',
		],
		[
			'64',
			'bad command line (no TASK, an empty one, a TASK that matches several tasks, a bad --grace, --host or --wait without a fleet ledger), or no ledger at --ledger PATH',
		],
		['75', 'on a fleet ledger: the host has not answered within --wait (the request stays pending)'],
	],
	examples: [
		['controlroom stop w-3f2c', 'stops the task whose id starts with w-3f2c'],
		['controlroom stop w-3f2c --grace 0', 'kills it without waiting'],
		["controlroom stop 'fix export'", 'stops the running task titled fix export'],
		[
			'controlroom stop w-3f2c --ledger postgres://fleet.example/db --host build-2',
			"asks build-2's sync to stop its task w-3f2c",
		],
	],
};

/** Exit code when the host has not answered a fleet request within --wait (EX_TEMPFAIL). */
const PENDING_EXIT = 75;

function graceOf(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0)
		throw new CliError(`--grace: expected seconds (0 or more), got '${value}'`, USAGE_EXIT);
	return seconds * 1000;
}

/** Places a stop request for the task's host and waits for the answer, woken by the server's notices. */
async function stopOnFleet(
	fleet: FleetLedger,
	ref: string,
	options: {host?: string; graceMs?: number; waitMs: number; json: boolean},
): Promise<number> {
	const task = await fleet.reader.resolveTask(ref, options.host);
	if (!task)
		throw new CliError(`stop: no task '${ref}'${options.host ? ` on host ${options.host}` : ''} in the fleet at ${fleet.where}`);
	const requestId = await fleet.request({
		hostId: task.hostId,
		taskId: task.id,
		verb: 'stop',
		args: options.graceMs === undefined ? {} : {graceMs: options.graceMs},
		requestedBy: `cli@${hostName()}`,
	});
	let wake: () => void = () => undefined;
	const unlisten = await fleet.listen(() => wake());
	try {
		const deadline = Date.now() + options.waitMs;
		for (;;) {
			const changed = new Promise<void>(resolve => (wake = resolve));
			const outcome = await fleet.outcomeOf(task.hostId, requestId);
			if (outcome) {
				// The host's answer is text from another machine (its message, its name): it reaches this
				// terminal through terminalSafe, as a local stop's message does.
				if (options.json) out(terminalSafeJson({requestId, host: task.host, taskId: task.id, ...outcome}));
				else if (outcome.outcome === 'done') out(terminalSafe(`${task.host}: ${outcome.message}`));
				else process.stderr.write(`controlroom: ${terminalSafe(`${task.host}: ${outcome.message} (${outcome.outcome})`)}\n`);
				return outcome.outcome === 'done' ? 0 : 1;
			}
			const left = deadline - Date.now();
			if (left <= 0) break;
			await Promise.race([changed, new Promise(resolve => setTimeout(resolve, left).unref())]);
		}
		const pending = `stop of ${task.id} requested from ${task.host} (request #${requestId}); still pending: is \`controlroom sync\` running there?`;
		if (options.json) out(terminalSafeJson({requestId, host: task.host, taskId: task.id, outcome: 'pending', message: pending}));
		else process.stderr.write(`controlroom: ${terminalSafe(pending)}\n`);
		return PENDING_EXIT;
	} finally {
		await unlisten();
	}
}

/** `controlroom stop TASK`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('stop', argv, {
		grace: {type: 'string'},
		json: {type: 'boolean'},
		host: {type: 'string'},
		wait: {type: 'string'},
	});
	const ref = taskArgument('stop', positionals);
	const graceMs = graceOf(values.grace);
	if (isFleetUrl(values.ledger)) {
		const waitMs = (positiveSeconds('wait', values.wait) ?? 30) * 1000;
		return withFleet(values.ledger, 'stop', fleet =>
			stopOnFleet(fleet, ref, {
				...(values.host === undefined ? {} : {host: values.host}),
				...(graceMs === undefined ? {} : {graceMs}),
				waitMs,
				json: values.json ?? false,
			}),
		);
	}
	if (values.host !== undefined || values.wait !== undefined)
		throw new CliError('stop: --host and --wait apply to a fleet ledger (--ledger postgres://...)', USAGE_EXIT);
	const ledger = openReadingLedger(values.ledger, 'existing');
	try {
		const result = await stopTask(ledger, ref, graceMs === undefined ? {} : {graceMs});
		if (values.json) out(terminalSafeJson(result));
		else if (result.outcome === 'stopped') out(terminalSafe(result.message));
		else process.stderr.write(`controlroom: ${terminalSafe(result.message)}\n`);
		if (result.outcome === 'refused' && result.reason === 'ambiguous') return USAGE_EXIT;
		return result.outcome === 'stopped' ? 0 : 1;
	} finally {
		ledger.close();
	}
}
