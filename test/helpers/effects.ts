import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {foldOrders, ORDER_EVENT_TYPES, type OrderRecord} from '../../src/core/effects/fold.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN} from './cli.ts';

/** The real upstream servers, pinned devDependencies, started by path (no npx download). */
export const FS_SERVER = fileURLToPath(
	new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);
export const MEMORY_SERVER = fileURLToPath(
	new URL('../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
/** Our own slow upstream (test/fixtures/effects/slow-upstream.mjs): holds a call until told. */
export const SLOW_SERVER = fileURLToPath(new URL('../fixtures/effects/slow-upstream.mjs', import.meta.url));

/** A tool result as the SDK client returns it. */
export type ToolResult = {
	isError?: boolean;
	content: {type: string; text?: string}[];
	structuredContent?: Record<string, unknown>;
};

/** The text parts of a tool result, joined. */
export function resultText(result: ToolResult): string {
	return result.content.map(part => part.text ?? '').join('\n');
}

/** Writes a work order file in `dir`. */
export function writeOrder(dir: string, yaml: string, name = 'order.yaml'): string {
	const file = join(dir, name);
	writeFileSync(file, yaml);
	return file;
}

/** A work order `id` for `worker` with the filesystem server on `srv` as upstream `fs`, its write_file staged (5 calls). */
export function writeFsOrder(dir: string, id: string, srv: string): string {
	return writeOrder(
		dir,
		`order: ${id}
worker: worker
budget: {calls: 5}
upstreams:
  fs:
    command: ${process.execPath}
    args: [${FS_SERVER}, ${srv}]
    allow: [write_file]
`,
	);
}

/** Connects an SDK client to `controlroom gateway --order FILE` (the real binary) on stdio. */
export async function connectGateway(orderFile: string, ledgerFile: string, env: Record<string, string> = {}): Promise<Client> {
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [BIN, 'gateway', '--order', orderFile, '--ledger', ledgerFile],
		env: {...(process.env as Record<string, string>), ...env},
		stderr: 'pipe',
	});
	const client = new Client({name: 'effects-test', version: '0.0.0'});
	await client.connect(transport);
	return client;
}

/** Calls a tool through a client. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
	return (await client.callTool({name, arguments: args})) as ToolResult;
}

/** The ledger's events of one order, with their types (and the folded order). */
export function orderInLedger(ledgerFile: string, orderId: string): {types: string[]; order: OrderRecord | undefined} {
	const ledger = openLedger(ledgerFile);
	try {
		const events = ledger.reader.eventsOfType(ORDER_EVENT_TYPES).filter(event => event.taskId === orderId);
		return {types: events.map(event => event.type), order: foldOrders(events).get(orderId)};
	} finally {
		ledger.close();
	}
}
