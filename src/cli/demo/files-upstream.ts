import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {dirname, isAbsolute, join, normalize, sep} from 'node:path';
import * as z from 'zod';
import {serveOnStdio} from '../serve-stdio.ts';

// The demo's upstream MCP server: the work order's one upstream, so the demo holds a real effect
// and `a` on the board runs it (docs/demo.md). It writes and reads files only inside
// the demo's scratch folder; an installed package has no other MCP server to start.

function text(message: string, isError = false): CallToolResult {
	return {content: [{type: 'text', text: message}], ...(isError ? {isError: true} : {})};
}

/** `path` inside `root`, or null for an absolute path or one that climbs out with `..`. */
function inside(root: string, path: string): string | null {
	const relative = normalize(path);
	if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) return null;
	return join(root, relative);
}

function createFilesServer(root: string, version: string): McpServer {
	const server = new McpServer({name: 'controlroom-demo-files', version});
	const path = z.string().min(1).describe('a path inside the demo folder, e.g. CHANGELOG.md');
	server.registerTool(
		'read_file',
		{description: 'Read a file of the demo folder.', inputSchema: {path}, annotations: {readOnlyHint: true}},
		({path: wanted}) => {
			const file = inside(root, wanted);
			if (file === null) return text(`${wanted}: outside the demo folder`, true);
			try {
				return text(readFileSync(file, 'utf8'));
			} catch (error) {
				return text(`${wanted}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`, true);
			}
		},
	);
	server.registerTool(
		'write_file',
		{description: 'Write a file of the demo folder (replaces it).', inputSchema: {path, content: z.string()}},
		({path: wanted, content}) => {
			const file = inside(root, wanted);
			if (file === null) return text(`${wanted}: outside the demo folder`, true);
			mkdirSync(dirname(file), {recursive: true});
			writeFileSync(file, content);
			return text(`wrote ${Buffer.byteLength(content)} bytes to ${wanted}`);
		},
	);
	return server;
}

/** Serves the demo folder `root` on stdio until the client closes it. */
export async function serveDemoFiles(root: string, version: string): Promise<void> {
	await serveOnStdio(createFilesServer(root, version));
}
