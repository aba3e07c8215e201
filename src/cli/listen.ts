import type {Server} from 'node:http';
import {isIP} from 'node:net';
import {terminalSafe} from '../core/terminal-text.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {PORT_TAKEN_EXIT} from './otel-receive.ts';

// How a server of controlroom's that people reach over HTTP listens (docs/serve.md, "Listening"):
// loopback unless told otherwise, a warning when not, and the public address it advertises behind
// a TLS terminator. One module, so every such server (serve, and the web board) says the same.

/** Hostnames that are this machine only. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Whether a listen address or hostname is reachable from this machine only. */
export function isLoopback(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, '');
	return LOOPBACK_NAMES.has(host) || LOOPBACK_NAMES.has(bare) || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** Where to listen and what to advertise, as `--listen` and `--public-url` gave them. */
export type ListenPlan = {
	readonly host: string;
	readonly port: number;
	readonly isLoopback: boolean;
	/** `--public-url`: the https address a TLS terminator in front serves; null: the listening address. */
	readonly publicUrl: URL | null;
};

/** Reads `--listen ADDR:PORT` (default 127.0.0.1:PORT) and `--public-url URL`; refuses what cannot be served. */
export function listenPlan(flags: {readonly listen?: string; readonly publicUrl?: string}, defaultPort: number): ListenPlan {
	let host = '127.0.0.1';
	let port = defaultPort;
	if (flags.listen !== undefined) {
		const match = flags.listen.match(/^(?:\[([0-9a-fA-F:]+)\]|([^:[\]\s]+)):(\d{1,5})$/);
		const named = match?.[1] ?? match?.[2];
		const portNumber = Number(match?.[3]);
		if (match === null || named === undefined || !Number.isInteger(portNumber) || portNumber > 65535)
			throw new CliError(
				`--listen: expected ADDRESS:PORT (127.0.0.1:8420, [::1]:8420, 0.0.0.0:8420), got '${terminalSafe(flags.listen)}'`,
				USAGE_EXIT,
			);
		host = named;
		port = portNumber;
	}
	const publicUrl = flags.publicUrl === undefined ? null : publicUrlOf(flags.publicUrl);
	const loopback = isLoopback(host);
	if (!loopback && publicUrl === null)
		throw new CliError(
			`--listen ${host}:${port} is not loopback: give --public-url https://... , the address the TLS terminator in front of it serves (docs/serve.md, "Exposing it")`,
			USAGE_EXIT,
		);
	return {host, port, isLoopback: loopback, publicUrl};
}

function publicUrlOf(text: string): URL {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new CliError(`--public-url: not a URL: '${terminalSafe(text)}'`, USAGE_EXIT);
	}
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
		throw new CliError(`--public-url: must be https:// (http:// only on loopback), got ${url.protocol}`, USAGE_EXIT);
	if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
		throw new CliError('--public-url: only scheme, host and port (serve it at the root of its host)', USAGE_EXIT);
	return url;
}

/** The warning a server prints when it listens where others can reach it. */
export function exposureWarning(plan: ListenPlan): string | null {
	if (plan.isLoopback) return null;
	return `listening on ${plan.host}:${plan.port}, not loopback: anything that reaches this port can try it; serve it only behind the TLS terminator at ${plan.publicUrl?.origin ?? '--public-url'} (docs/serve.md, "Exposing it")`;
}

/** The address to advertise: `--public-url`, else where it listens (the port it got, when asked for 0). */
export function advertisedUrl(plan: ListenPlan, port: number): URL {
	if (plan.publicUrl !== null) return plan.publicUrl;
	const host = isIP(plan.host) === 6 ? `[${plan.host}]` : plan.host;
	return new URL(`http://${host}:${port}/`);
}

/**
 * Hostnames a request's Host header may name (DNS rebinding protection, the SDK's middleware):
 * the loopback names, the listening address, and the public URL's host.
 */
export function allowedHostnames(plan: ListenPlan): string[] {
	const names = new Set(['localhost', '127.0.0.1', '[::1]']);
	if (plan.host !== '0.0.0.0' && plan.host !== '::') names.add(isIP(plan.host) === 6 ? `[${plan.host}]` : plan.host);
	if (plan.publicUrl !== null) names.add(plan.publicUrl.hostname);
	return [...names];
}

/** Starts listening; a taken port is one line and exit 69, as for every server of controlroom's. */
export async function listenOn(server: Server, plan: ListenPlan, what: string): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		const onError = (error: NodeJS.ErrnoException): void => {
			if (error.code === 'EADDRINUSE')
				reject(
					new CliError(
						`${what}: ${plan.host}:${plan.port} is taken by another program; choose another with --listen`,
						PORT_TAKEN_EXIT,
					),
				);
			else if (error.code === 'EADDRNOTAVAIL')
				reject(new CliError(`${what}: ${plan.host} is not an address of this machine`, USAGE_EXIT));
			else if (error.code === 'EACCES')
				reject(new CliError(`${what}: not allowed to listen on port ${plan.port} (ports under 1024 need root)`, USAGE_EXIT));
			else reject(error);
		};
		server.once('error', onError);
		server.listen(plan.port, plan.host, () => {
			server.off('error', onError);
			resolve();
		});
	});
	const address = server.address();
	return typeof address === 'object' && address !== null ? address.port : plan.port;
}
