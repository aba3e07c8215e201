import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {JSONRPCMessageSchema, type JSONRPCMessage} from '@modelcontextprotocol/sdk/types.js';

import {JsonRpcIdScanner} from '../core/jsonrpc-id-scan.ts';
import {MAX_MCP_REQUEST_BYTES} from '../core/mcp-limits.ts';

/** What is kept of an oversized request: its first bytes, to name the tool (its id is found by a scan of the whole line). */
const HEAD_BYTES = 4096;

/** A request line over the limit, as much of it as is kept. */
export type OversizedRequest = {
	readonly bytes: number;
	readonly id: string | number | null;
	readonly method: string | null;
	/** The tool named in a tools/call, if its name is in the kept start. */
	readonly tool: string | null;
	/** The start of the line, as text. */
	readonly head: string;
};

const pick = (pattern: RegExp, text: string): string | null => pattern.exec(text)?.[1] ?? null;

/**
 * The MCP stdio server transport with a bounded line: the SDK's own drops a request over its
 * buffer limit and closes the connection without a word to either side. Here a line over the
 * limit is skipped to its newline (never held whole), answered with a JSON-RPC error naming the
 * limit (when its id can be read), and handed to `onOversized` so the server records it; the
 * connection goes on.
 */
export class BoundedStdioServerTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	private chunks: Buffer[] = [];
	private length = 0;
	private oversized: {bytes: number; head: Buffer; ids: JsonRpcIdScanner} | null = null;
	private readonly onData = (chunk: Buffer): void => this.take(chunk);
	private readonly onError = (error: Error): void => this.onerror?.(error);

	private readonly onOversized: (request: OversizedRequest) => void;
	private readonly stdin: NodeJS.ReadableStream;
	private readonly stdout: NodeJS.WritableStream;
	private readonly maxBytes: number;

	constructor(
		onOversized: (request: OversizedRequest) => void,
		options: {stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream; maxBytes?: number} = {},
	) {
		this.onOversized = onOversized;
		this.stdin = options.stdin ?? process.stdin;
		this.stdout = options.stdout ?? process.stdout;
		this.maxBytes = options.maxBytes ?? MAX_MCP_REQUEST_BYTES;
	}

	async start(): Promise<void> {
		this.stdin.on('data', this.onData);
		this.stdin.on('error', this.onError);
	}

	async close(): Promise<void> {
		this.stdin.off('data', this.onData);
		this.stdin.off('error', this.onError);
		if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
		this.chunks = [];
		this.oversized = null;
		this.onclose?.();
	}

	send(message: JSONRPCMessage): Promise<void> {
		return new Promise(resolve => {
			if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
			else this.stdout.once('drain', resolve);
		});
	}

	private take(chunk: Buffer): void {
		let rest = chunk;
		while (rest.length > 0) {
			const newline = rest.indexOf(0x0a);
			const part = newline === -1 ? rest : rest.subarray(0, newline);
			this.add(part);
			if (newline === -1) return;
			this.endLine();
			rest = rest.subarray(newline + 1);
		}
	}

	private add(part: Buffer): void {
		if (this.oversized) {
			this.oversized.bytes += part.length;
			this.oversized.ids.feed(part);
			return;
		}
		if (this.length + part.length <= this.maxBytes) {
			this.chunks.push(part);
			this.length += part.length;
			return;
		}
		// Over the limit: keep the start, scan for the id wherever it sits, drop the rest as it comes.
		const all = Buffer.concat([...this.chunks, part]);
		const ids = new JsonRpcIdScanner();
		ids.feed(all);
		this.oversized = {bytes: all.length, head: Buffer.from(all.subarray(0, HEAD_BYTES)), ids};
		this.chunks = [];
		this.length = 0;
	}

	private endLine(): void {
		const oversized = this.oversized;
		this.oversized = null;
		if (oversized) {
			this.refuse(oversized);
			return;
		}
		const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
		this.chunks = [];
		this.length = 0;
		if (line.trim() === '') return;
		try {
			this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line)));
		} catch (error) {
			this.onerror?.(error as Error);
		}
	}

	private refuse(oversized: {bytes: number; head: Buffer; ids: JsonRpcIdScanner}): void {
		const head = oversized.head.toString('utf8');
		const request: OversizedRequest = {
			bytes: oversized.bytes,
			id: oversized.ids.id(),
			method: pick(/"method"\s*:\s*"([^"\\]{1,100})"/, head),
			tool: pick(/"params"\s*:\s*\{\s*"name"\s*:\s*"([^"\\]{1,200})"/, head),
			head,
		};
		try {
			this.onOversized(request);
		} catch (error) {
			this.onerror?.(error as Error);
		}
		if (request.id === null) return;
		void this.send({
			jsonrpc: '2.0',
			id: request.id,
			error: {
				code: -32600,
				message: `request of ${request.bytes} bytes is over the limit of ${this.maxBytes} bytes (${Math.round(this.maxBytes / 1048576)} MiB); it was not read, and is recorded`,
			},
		});
	}
}
