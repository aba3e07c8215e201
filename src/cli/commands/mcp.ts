import {createHandoffServer} from '../../handoff/mcp-server.ts';
import {serveOnStdio} from '../serve-stdio.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageVersion} from '../package-root.ts';
import {workerIdentity} from '../worker-identity.ts';

export const help: CommandHelp = {
	synopsis: ['mcp --as NAME'],
	description: `Serves the claim verbs to one agent over stdio (MCP): take, progress, hand_in, pass_back,
raise_need, list_work. The agent acts as NAME and only as NAME: it takes for NAME, and may
progress, hand in or pass back only claims NAME holds (anything else is a tool error naming the
holder); every event it writes records NAME as its actor. Stdout carries only the protocol; it
runs until stdin closes. Register one server per agent, each with its own --as.`,
	options: [['--as NAME', 'who the agent is (required; $CONTROLROOM_WORKER when not given)']],
	exits: [
		['0', 'stdin closed (the agent went away)'],
		['1', 'the ledger cannot be opened'],
		['64', 'bad command line, no --as (nor CONTROLROOM_WORKER), or a --ledger in a missing folder'],
	],
	examples: [
		['claude mcp add controlroom -- controlroom mcp --as worker-1', 'gives a Claude Code agent the claim verbs as worker-1'],
	],
};

/** `controlroom mcp --as NAME`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('mcp', argv, {as: {type: 'string'}});
	if (positionals.length > 0) throw new CliError('mcp: takes no arguments', USAGE_EXIT);
	const identity = workerIdentity('mcp', values.as);
	if (identity === null)
		throw new CliError('mcp: --as NAME is required: who the agent is (or set CONTROLROOM_WORKER)', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'create'});
	const server = createHandoffServer(ledger, identity, packageVersion());
	await serveOnStdio(server);
	ledger.close();
	return 0;
}
