import type {IncomingMessage, ServerResponse} from 'node:http';

// Small pieces of HTTP the web board's app shares: answers with the headers every response carries,
// bodies read under a cap, cookies.

/** A request body larger than this is refused before it is read (the page sends small forms). */
export const MAX_BODY_BYTES = 64 * 1024;

export function send(
	response: ServerResponse,
	status: number,
	type: string,
	body: string,
	headers: Record<string, string> = {},
): void {
	response.writeHead(status, {
		'content-type': type,
		'content-length': Buffer.byteLength(body),
		'cache-control': 'no-store',
		'x-content-type-options': 'nosniff',
		'referrer-policy': 'no-referrer',
		...headers,
	});
	response.end(body);
}

export const sendText = (response: ServerResponse, status: number, text: string): void =>
	send(response, status, 'text/plain; charset=utf-8', `${text}\n`);

/** Whether a request declares a body over the cap (or one of unknown length): answered 413 before reading it. */
export function isBodyTooLarge(request: IncomingMessage): boolean {
	const declared = Number(request.headers['content-length'] ?? 0);
	return !Number.isFinite(declared) || declared > MAX_BODY_BYTES || request.headers['transfer-encoding'] !== undefined;
}

/** Refuses a body over the cap at once, and ends the connection once the answer is out. */
export function refuseBody(request: IncomingMessage, response: ServerResponse): void {
	response.setHeader('connection', 'close');
	response.on('finish', () => request.socket.destroy());
	sendText(response, 413, `request body over ${MAX_BODY_BYTES} bytes`);
}

/** A form body (application/x-www-form-urlencoded), read under the cap; null when over it. */
export async function readForm(request: IncomingMessage): Promise<URLSearchParams | null> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) return null;
		chunks.push(chunk as Buffer);
	}
	return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A cookie's value from the request, or undefined. */
export function cookieOf(request: IncomingMessage, name: string): string | undefined {
	for (const part of (request.headers.cookie ?? '').split(';')) {
		const [key, ...value] = part.trim().split('=');
		if (key === name) return value.join('=');
	}
	return undefined;
}
