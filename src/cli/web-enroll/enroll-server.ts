import {randomBytes, timingSafeEqual} from 'node:crypto';
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {EnrolledPasskey} from '../../core/passkey/fold.ts';
import {
	answerOptions,
	enrollApproval,
	localRelyingParty,
	PasskeyError,
	registrationOptions,
	verifyAnswer,
	verifyRegistration,
	type PasskeyProof,
	type PendingRegistration,
} from '../../gates/passkey/index.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {enrollPage} from './enroll-page.ts';

// `controlroom web enroll`'s own loopback server (docs/passkeys.md, "Enrolling"): one page behind a
// one-time path, for one registration, until it is done or the time is up. Registration needs a
// browser, so the command serves the page itself rather than depend on a web server running.

/** A request body is a few kilobytes of base64url; anything past this is refused unread. */
const MAX_BODY_BYTES = 64 * 1024;

export type EnrollServer = {
	/** The one-time link to open: http://localhost:PORT/enroll/TOKEN. */
	readonly url: string;
	/** Settles with the enrolled passkey, or rejects with a one-line error when the time is up. */
	readonly done: Promise<EnrolledPasskey>;
	close(): void;
};

class HttpProblem extends Error {
	readonly status: number;
	constructor(status: number, message: string) {
		super(message);
		this.status = status;
	}
}

async function readJson(request: IncomingMessage): Promise<unknown> {
	const declared = Number(request.headers['content-length'] ?? '0');
	if (declared > MAX_BODY_BYTES) throw new HttpProblem(413, `request body over ${MAX_BODY_BYTES} bytes`);
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) throw new HttpProblem(413, `request body over ${MAX_BODY_BYTES} bytes`);
		chunks.push(chunk as Buffer);
	}
	try {
		return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
	} catch {
		throw new HttpProblem(400, 'the request body is not JSON');
	}
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
	response.writeHead(status, {
		'content-type': type,
		'cache-control': 'no-store',
		'x-content-type-options': 'nosniff',
		'referrer-policy': 'no-referrer',
		'content-security-policy':
			"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
	});
	response.end(body);
}

const sameToken = (given: string, token: string): boolean =>
	given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));

/**
 * Serves the enrollment page on 127.0.0.1 (`port` 0: any free port) for `name`, until a passkey
 * is enrolled or `timeoutMs` passes. Only requests for this server's own host (localhost:PORT,
 * 127.0.0.1:PORT: no DNS rebinding) and, for posts, from its own origin are taken.
 */
export async function startEnrollServer(
	ledger: Ledger,
	options: {readonly name: string; readonly user: string; readonly port: number; readonly timeoutMs: number},
): Promise<EnrollServer> {
	const token = randomBytes(18).toString('base64url');
	const base = `/enroll/${token}`;
	let pending: PendingRegistration | null = null;
	let approval: PasskeyProof | undefined;
	let settle: {resolve: (passkey: EnrolledPasskey) => void; reject: (error: Error) => void} | undefined;
	const done = new Promise<EnrolledPasskey>((resolve, reject) => {
		settle = {resolve, reject};
	});
	const server = createServer();
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	const rp = localRelyingParty(port);
	const hosts = new Set([`localhost:${port}`, `127.0.0.1:${port}`]);

	async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
		if (!hosts.has(request.headers.host ?? '')) throw new HttpProblem(421, 'wrong host');
		const path = (request.url ?? '').split('?')[0] ?? '';
		const [, prefix, given, action] = /^\/(enroll)\/([^/]+)(?:\/(begin|approve|finish))?$/.exec(path) ?? [];
		if (prefix === undefined || given === undefined || !sameToken(given, token)) throw new HttpProblem(404, 'not found');
		if (action === undefined) {
			if (request.method !== 'GET') throw new HttpProblem(405, 'GET only');
			send(response, 200, 'text/html; charset=utf-8', enrollPage(options.name));
			return;
		}
		if (request.method !== 'POST') throw new HttpProblem(405, 'POST only');
		if (!rp.origins.includes(request.headers.origin ?? '')) throw new HttpProblem(403, `open the page at ${rp.origins[0]}`);
		const body = (await readJson(request)) as {signed?: unknown; response?: unknown} | null;
		let reply: unknown;
		if (action === 'begin') {
			const made = await registrationOptions(ledger, rp, {name: options.name, user: options.user});
			pending = made.pending;
			approval = undefined;
			const approve = pending.needsApproval ? await answerOptions(ledger, rp, enrollApproval(pending)) : null;
			reply = {register: made.options, ...(approve ? {approve} : {})};
		} else if (pending === null) {
			throw new HttpProblem(409, 'start again: no registration is under way');
		} else if (action === 'approve') {
			approval = await verifyAnswer(ledger, rp, {signed: body?.signed, response: body?.response});
			reply = {ok: true};
		} else {
			const enrolled = await verifyRegistration(ledger, rp, pending, body?.response, {
				by: options.user,
				...(approval ? {approval} : {}),
			});
			pending = null;
			settle?.resolve(enrolled);
			reply = {ok: true, name: enrolled.name};
		}
		send(response, 200, 'application/json', JSON.stringify(reply));
	}

	server.on('request', (request: IncomingMessage, response: ServerResponse) => {
		route(request, response).catch((error: unknown) => {
			const status = error instanceof HttpProblem ? error.status : error instanceof PasskeyError ? 400 : 500;
			const message = error instanceof HttpProblem || error instanceof PasskeyError ? error.message : 'internal error';
			if (!response.headersSent) send(response, status, 'application/json', JSON.stringify({error: message}));
			// A body too big is not read on: the connection goes.
			if (status === 413) request.destroy();
		});
	});
	const timer = setTimeout(
		() => settle?.reject(new PasskeyError('no passkey was enrolled before the time was up')),
		options.timeoutMs,
	);
	const close = () => {
		clearTimeout(timer);
		server.close();
		server.closeAllConnections();
	};
	void done.then(close, close);
	return {url: `http://localhost:${port}${base}`, done, close};
}
