import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js';

/** What can be served: an McpServer or a low-level Server (the gateway's), anything that connects to a transport. */
type Servable = {connect(transport: StdioServerTransport): Promise<void>; close(): Promise<void>};

/** Serves `server` on stdin/stdout until the client closes the transport or stdin ends, then closes it. */
export async function serveOnStdio(server: Servable): Promise<void> {
	const transport = new StdioServerTransport();
	const closed = new Promise<void>(resolve => {
		transport.onclose = resolve;
		process.stdin.once('end', resolve);
	});
	await server.connect(transport);
	await closed;
	await server.close();
}
