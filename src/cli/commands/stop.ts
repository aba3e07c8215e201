import {hostName} from '../../ledger/host.ts';
import {isFleetUrl} from '../../ledger/fleet/connection.ts';
import type {FleetLedger} from '../../ledger/fleet/open-fleet.ts';
import {stopTask} from '../../producers/stop.ts';
import {parseCommandArgs, positiveSeconds} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {withFleet} from '../fleet-context.ts';

export const usage = `controlroom stop TASK [--grace SECONDS] [--json] [--ledger PATH]
controlroom stop TASK --ledger postgres://... [--host NAME] [--grace SECONDS] [--wait SECONDS]
  Sends SIGTERM to the task's process group, waits up to --grace seconds (default 5), then SIGKILL,
  confirms no process of the group is left, and records the task as stopped. A task whose PID is
  unknown cannot be stopped. Exit 0 stopped, 1 could not stop (the message says why).
  On a fleet ledger the stop is a request that the task's host carries out (its sync must run);
  the command waits up to --wait seconds (default 30) for the host's answer; exit 75 while it is
  still pending then.`;

/** Exit code when the host has not answered a fleet request within --wait (EX_TEMPFAIL). */
const PENDING_EXIT = 75;

function graceOf(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (!Number.isFinite(seconds) || seconds < 0)
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
				if (options.json) out(JSON.stringify({requestId, host: task.host, taskId: task.id, ...outcome}));
				else if (outcome.outcome === 'done') out(`${task.host}: ${outcome.message}`);
				else process.stderr.write(`controlroom: ${task.host}: ${outcome.message} (${outcome.outcome})\n`);
				return outcome.outcome === 'done' ? 0 : 1;
			}
			const left = deadline - Date.now();
			if (left <= 0) break;
			await Promise.race([changed, new Promise(resolve => setTimeout(resolve, left).unref())]);
		}
		const pending = `stop of ${task.id} requested from ${task.host} (request #${requestId}); still pending: is \`controlroom sync\` running there?`;
		if (options.json) out(JSON.stringify({requestId, host: task.host, taskId: task.id, outcome: 'pending', message: pending}));
		else process.stderr.write(`controlroom: ${pending}\n`);
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
	if (values.help) return (out(usage), 0);
	if (positionals.length !== 1) throw new CliError('stop: takes exactly one TASK (id, id prefix or session id)', USAGE_EXIT);
	const graceMs = graceOf(values.grace);
	const ref = positionals[0] as string;
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
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const result = await stopTask(ledger, ref, graceMs === undefined ? {} : {graceMs});
		if (values.json) out(JSON.stringify(result));
		else if (result.outcome === 'stopped') out(result.message);
		else process.stderr.write(`controlroom: ${result.message}\n`);
		return result.outcome === 'stopped' ? 0 : 1;
	} finally {
		ledger.close();
	}
}
