import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {createHandoffServer} from '../../handoff/mcp-server.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {packageRoot} from '../package-root.ts';

export const usage = `controlroom mcp [--as NAME] [--ledger PATH]
  Serves the claim verbs to an agent over stdio (MCP): take, progress, hand_in, pass_back,
  raise_need, list_work. NAME (or $CONTROLROOM_WORKER) is who takes when a take names no one.
  Stdout carries only the protocol; it runs until stdin closes.`;

/** `controlroom mcp`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('mcp', argv, {as: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length > 0) throw new CliError('mcp: takes no arguments', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger);
	const version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {version: string}).version;
	const server = createHandoffServer(ledger, values.as ?? process.env['CONTROLROOM_WORKER'] ?? null, version);
	const transport = new StdioServerTransport();
	const closed = new Promise<void>(resolve => {
		transport.onclose = resolve;
		process.stdin.once('end', resolve);
	});
	await server.connect(transport);
	await closed;
	await server.close();
	ledger.close();
	return 0;
}
