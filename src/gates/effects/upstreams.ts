import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {getDefaultEnvironment, StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import type {Tool} from '@modelcontextprotocol/sdk/types.js';
import {isAbsolute, resolve} from 'node:path';
import type {UpstreamSpec} from '../../core/effects/order.ts';

/** Keeps the tail of an upstream's stderr, for the message when it fails. */
const STDERR_TAIL = 2000;

/** A connected upstream MCP server. */
export type Upstream = {
	readonly name: string;
	readonly client: Client;
	/** The last lines the server wrote to stderr. */
	stderrTail(): string;
	close(): Promise<void>;
};

/** An upstream that could not be started or listed. */
export class UpstreamError extends Error {}

/**
 * The environment an upstream gets: the SDK's safe defaults (HOME, PATH, ...) and the order's
 * `env`, where `$NAME` or `${NAME}` is read from this process's environment, so an order file
 * (and the ledger, which records its commands) never has to hold a secret's value.
 */
export function upstreamEnvironment(spec: UpstreamSpec, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
	const env: Record<string, string> = {...getDefaultEnvironment()};
	for (const [key, value] of Object.entries(spec.env)) {
		const reference = value.match(/^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/);
		if (!reference) {
			env[key] = value;
			continue;
		}
		const name = reference[1] ?? reference[2] ?? '';
		const found = from[name];
		if (found === undefined) throw new UpstreamError(`upstream ${spec.name}: env ${key} refers to $${name}, which is not set`);
		env[key] = found;
	}
	return env;
}

/** Starts an upstream as a child process on stdio and connects an MCP client to it. */
export async function connectUpstream(spec: UpstreamSpec, orderDir: string, clientName: string): Promise<Upstream> {
	const cwd = spec.cwd === null ? orderDir : isAbsolute(spec.cwd) ? spec.cwd : resolve(orderDir, spec.cwd);
	const transport = new StdioClientTransport({
		command: spec.command,
		args: [...spec.args],
		env: upstreamEnvironment(spec),
		cwd,
		stderr: 'pipe',
	});
	let tail = '';
	transport.stderr?.on('data', (chunk: Buffer) => {
		tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
	});
	const client = new Client({name: clientName, version: '1'});
	try {
		await client.connect(transport);
	} catch (error) {
		await client.close().catch(() => undefined);
		const said = tail.trim() ? ` (it said: ${tail.trim().split('\n').slice(-2).join(' / ')})` : '';
		throw new UpstreamError(`upstream ${spec.name} (${spec.command}) did not start: ${(error as Error).message}${said}`);
	}
	return {name: spec.name, client, stderrTail: () => tail, close: () => client.close()};
}

/** Every tool an upstream lists, across pages. */
export async function listAllTools(upstream: Upstream): Promise<Tool[]> {
	const tools: Tool[] = [];
	let cursor: string | undefined;
	do {
		const page = await upstream.client.listTools(cursor === undefined ? {} : {cursor});
		tools.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	return tools;
}
