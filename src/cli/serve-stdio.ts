import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js';
import {BoundedStdioServerTransport, type OversizedRequest} from './bounded-stdio.ts';

/** What can be served: an McpServer or a low-level Server (the gateway's), anything that connects to a transport. */
type Servable = {connect(transport: Transport): Promise<void>; close(): Promise<void>};

/**
 * Serves `server` on stdin/stdout until the client closes the transport or stdin ends, then closes
 * it. Requests go through the bounded transport (src/cli/bounded-stdio.ts): a line over the limit
 * is answered with an error and handed to `onOversized`, never held whole.
 */
export async function serveOnStdio(
	server: Servable,
	onOversized: (request: OversizedRequest) => void = () => undefined,
): Promise<void> {
	const transport = new BoundedStdioServerTransport(onOversized);
	const closed = new Promise<void>(resolve => {
		transport.onclose = resolve;
		process.stdin.once('end', resolve);
	});
	await server.connect(transport);
	await closed;
	await server.close();
}
