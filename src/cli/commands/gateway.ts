import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {GatewayError, startGateway} from '../../gates/effects/gateway.ts';
import {loadOrderFile, OrderFileError} from '../../gates/effects/order-file.ts';
import {UpstreamError} from '../../gates/effects/upstreams.ts';
import {ToolNameClashError} from '../../core/effects/plan.ts';
import {serveOnStdio} from '../serve-stdio.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageRoot} from '../package-root.ts';

export const help: CommandHelp = {
	synopsis: ['gateway --order FILE'],
	description: `The effect gate: an MCP server on stdio between a worker and the upstream MCP servers its work
order names. Lists only the order's allowed tools; reads pass through and are recorded; staged
calls are recorded and held, answered with a placeholder (pending:UPSTREAM/TOOL#N); other tools
and calls past the budget are refused. A person approves held calls with controlroom effects or on
the board. Stdout carries only the protocol; it runs until stdin closes. See docs/effects.md.`,
	options: [['--order FILE', 'the work order (YAML); required']],
	exits: [
		['0', 'stdin closed: the client is done'],
		['1', 'the order is invalid or cannot be read, an upstream did not start, or tool names clash'],
		['64', 'bad command line, or no ledger at --ledger PATH (only run and ingest create one)'],
	],
	examples: [['controlroom gateway --order o-42.yaml', 'what an MCP client config runs (command + args)']],
};

/** `controlroom gateway`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('gateway', argv, {order: {type: 'string'}});
	if (positionals.length > 0) throw new CliError('gateway: takes no arguments (the order is --order FILE)', USAGE_EXIT);
	if (values.order === undefined) throw new CliError('gateway: --order FILE is required', USAGE_EXIT);
	let loaded;
	try {
		loaded = loadOrderFile(values.order);
	} catch (error) {
		if (error instanceof OrderFileError) throw new CliError(error.message);
		throw error;
	}
	const ledger = openCommandLedger(values.ledger, {mode: 'existing', onMove: 'stay'});
	const version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {version: string}).version;
	let gateway;
	try {
		gateway = await startGateway(ledger, loaded, {
			workerTask: process.env['CONTROLROOM_TASK_ID'] ?? null,
			version,
			notice: line => process.stderr.write(`controlroom gateway: ${line}\n`),
		});
	} catch (error) {
		ledger.close();
		if (error instanceof GatewayError || error instanceof UpstreamError || error instanceof ToolNameClashError)
			throw new CliError(error.message);
		throw error;
	}
	for (const name of gateway.plan.missing)
		process.stderr.write(`controlroom gateway: ${name} is allowed but the upstream has no such tool\n`);
	await serveOnStdio(gateway.server, request => {
		gateway.refuseOversized(request);
		process.stderr.write(`controlroom gateway: refused a request of ${request.bytes} bytes (over the limit), recorded\n`);
	});
	await gateway.close();
	ledger.close();
	return 0;
}
