import {MAX_MCP_REQUEST_BYTES} from '../../core/mcp-limits.ts';
import {createHandoffServer} from '../../handoff/mcp-server.ts';
import {isStillInItsFile, watchLedgerFile} from '../../ledger/file-watch.ts';
import {serveOnStdio} from '../serve-stdio.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageVersion} from '../package-root.ts';
import {workerIdentity} from '../worker-identity.ts';
import {loadRepositories} from '../repository-file.ts';
import {receiverPolicy} from '../contract-policy.ts';
import {tripwireRunner} from '../tripwire-run.ts';
import {commandSettings} from '../config-file.ts';

export const help: CommandHelp = {
	synopsis: ['mcp --as NAME'],
	description: `Serves the claim verbs to one agent over stdio (MCP): take, progress, hand_in, pass_back,
raise_need, list_work; and the tools that write contracts: write_task, file_bug, write_transfer
(checked as contract check checks a file, stored in the ledger as drafts that a person makes
ready with contract ready ID; repositories.json maps their repository to a checkout, docs/serve.md).
The agent acts as NAME and only as NAME: it takes for NAME, and may
progress, hand in, pass back or raise a need only on claims NAME holds (a need also on its own run,
CONTROLROOM_TASK_ID; anything else is a tool error naming why); every event it writes records NAME
as its actor, and the queue names who raised a need. Stdout carries only the protocol; it
runs until stdin closes. Register one server per agent, each with its own --as.`,
	options: [
		['--as NAME', 'who the agent is (required; $CONTROLROOM_WORKER when not given)'],
		[
			'--require LIST',
			'what this receiver requires of a contract it takes (default: contractRequire in the config file; docs/contracts.md)',
		],
	],
	exits: [
		['0', 'stdin closed (the agent went away)'],
		['1', 'the ledger cannot be opened'],
		['64', 'bad command line, no --as (nor CONTROLROOM_WORKER), or no ledger at --ledger PATH (only run and ingest create one)'],
	],
	examples: [
		['claude mcp add controlroom -- controlroom mcp --as worker-1', 'gives a Claude Code agent the claim verbs as worker-1'],
	],
};

/** `controlroom mcp --as NAME`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('mcp', argv, {as: {type: 'string'}, require: {type: 'string'}});
	if (positionals.length > 0) throw new CliError('mcp: takes no arguments', USAGE_EXIT);
	const identity = workerIdentity('mcp', values.as);
	if (identity === null)
		throw new CliError('mcp: --as NAME is required: who the agent is (or set CONTROLROOM_WORKER)', USAGE_EXIT);
	const policy = receiverPolicy(values.require);
	const {passBackLimit, claimTimeLimit} = commandSettings({passBackLimit: undefined, claimTimeLimit: undefined});
	const ledger = openCommandLedger(values.ledger, {mode: 'existing', onMove: 'stay'});
	// The run of the agent that started this server, when it runs under `controlroom run`: its own task.
	const ownTask = process.env['CONTROLROOM_TASK_ID']?.trim() || null;
	// A moved ledger keeps the agent's claims in the file it opened; a deleted or replaced one is
	// reopened at its path. Either way the server says so on stderr (stdout carries the protocol).
	const say = (line: string): boolean => process.stderr.write(`controlroom mcp: ${line}\n`);
	const fileWatch = watchLedgerFile(
		ledger,
		change =>
			say(
				isStillInItsFile(change)
					? `the ledger ${change.path} was moved to ${change.nowIn}: this server's events, earlier and later, are in ${change.nowIn}`
					: `the ledger ${change.path} was ${change.kind}: writing to the new file there from now on (claims taken before are not in it)`,
			),
		error => say(`cannot reopen the ledger ${ledger.path} (${error.message}); the server goes on`),
	);
	const server = createHandoffServer(ledger, identity, packageVersion(), {
		beforeCall: fileWatch.check,
		ownTask,
		policy,
		runTripwire: tripwireRunner(ledger.path),
		passBackLimit,
		timeLimitSeconds: claimTimeLimit / 1000,
		repositories: loadRepositories(),
	});
	await serveOnStdio(server, request => {
		fileWatch.check();
		const what = `a request of ${request.bytes} bytes${request.tool ? ` (${request.tool})` : ''} from ${identity} is over the limit of ${MAX_MCP_REQUEST_BYTES} bytes, not read`;
		ledger.writer.reject({origin: 'mcp', line: null, reason: what, raw: request.head.slice(0, 512), rawBytes: request.bytes});
		say(`refused ${what}; recorded as a reject`);
	});
	fileWatch.stop();
	ledger.close();
	return 0;
}
