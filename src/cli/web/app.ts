import type {IncomingMessage, ServerResponse} from 'node:http';
import {DEFAULT_COLS, type BoardHub, type WebView} from './board-hub.ts';
import {BOARD_CSS, pageHtml} from './page.ts';
import {taskHref} from './render.ts';

// The web board's HTTP app (docs/web.md): the page, its stream, its script and stylesheet. Plain
// node:http: a handful of routes need no framework. Every response says what it is and forbids
// what the page never does (inline script, framing, other origins).

/** A request body larger than this is refused before it is read (the page sends small forms). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The page's policy: its own script and stylesheet only, no frames, forms to itself. */
const CSP =
	"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export type WebAppOptions = {
	readonly hub: BoardHub;
	/** The page's script, bundled (dist/web/board.js). */
	readonly script: () => string;
	/** Host header names accepted (DNS rebinding): src/cli/listen.ts's `allowedHostnames`. */
	readonly allowedHostnames: readonly string[];
	/** The key table's keys for the page's navigation commands. */
	readonly keys: Readonly<Record<string, readonly string[]>>;
};

function send(response: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
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

const sendText = (response: ServerResponse, status: number, text: string): void =>
	send(response, status, 'text/plain; charset=utf-8', `${text}\n`);

/** The Host header's name without its port, or null when there is none. */
function hostnameOf(request: IncomingMessage): string | null {
	const host = request.headers.host;
	if (host === undefined) return null;
	try {
		return new URL(`http://${host}`).hostname;
	} catch {
		return null;
	}
}

/** A page's width in columns, from `?cols=` (the script measures it), bounded. */
function colsOf(url: URL): number {
	const cols = Number(url.searchParams.get('cols'));
	return Number.isInteger(cols) && cols >= 40 && cols <= 240 ? cols : DEFAULT_COLS;
}

/** The view a path names: `/` the board, `/task/ID` a drill-down, `/help` the keys. */
function viewOf(path: string, cols: number): WebView | null {
	if (path === '/') return {cols, taskId: null, isHelp: false};
	if (path === '/help') return {cols, taskId: null, isHelp: true};
	const task = /^\/task\/([^/]+)$/.exec(path);
	if (task?.[1] !== undefined) {
		try {
			return {cols, taskId: decodeURIComponent(task[1]), isHelp: false};
		} catch {
			return null;
		}
	}
	return null;
}

/** The event stream of one view: the board's HTML at once and whenever it changes. */
function stream(hub: BoardHub, view: WebView, request: IncomingMessage, response: ServerResponse): void {
	response.writeHead(200, {
		'content-type': 'text/event-stream; charset=utf-8',
		'cache-control': 'no-store',
		'x-content-type-options': 'nosniff',
		connection: 'keep-alive',
	});
	// One event: each line of the HTML its own `data:` line (the HTML has none that are empty).
	const unsubscribe = hub.subscribe(view, html => {
		response.write(`event: board\ndata: ${html.split('\n').join('\ndata: ')}\n\n`);
	});
	const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), 25_000);
	request.on('close', () => {
		clearInterval(keepAlive);
		unsubscribe();
	});
}

/** The request handler. */
export function createWebApp(options: WebAppOptions): (request: IncomingMessage, response: ServerResponse) => void {
	const {hub} = options;
	return (request, response) => {
		const hostname = hostnameOf(request);
		if (hostname === null || !options.allowedHostnames.includes(hostname))
			return sendText(response, 421, 'this server does not answer for that Host');
		const declared = Number(request.headers['content-length'] ?? 0);
		if (declared > MAX_BODY_BYTES || request.headers['transfer-encoding'] !== undefined) {
			// Refused before a byte of it is read; the connection ends once the answer is out.
			response.setHeader('connection', 'close');
			response.on('finish', () => request.socket.destroy());
			return sendText(response, 413, `request body over ${MAX_BODY_BYTES} bytes`);
		}
		const url = new URL(request.url ?? '/', 'http://web.invalid');
		if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'method not allowed');
		if (url.pathname === '/board.js') return send(response, 200, 'text/javascript; charset=utf-8', options.script());
		if (url.pathname === '/board.css') return send(response, 200, 'text/css; charset=utf-8', BOARD_CSS);
		if (url.pathname === '/health') return send(response, 200, 'application/json', '{"status":"ok"}');
		if (url.pathname === '/events') {
			const view = viewOf(url.searchParams.get('path') ?? '/', colsOf(url));
			if (view === null) return sendText(response, 404, 'no such view');
			return stream(hub, view, request, response);
		}
		const view = viewOf(url.pathname, colsOf(url));
		if (view === null) return sendText(response, 404, 'no such page');
		const path = view.taskId === null ? url.pathname : taskHref(view.taskId);
		const title = view.taskId === null ? 'controlroom' : `controlroom · ${view.taskId}`;
		send(
			response,
			200,
			'text/html; charset=utf-8',
			pageHtml({title, board: hub.html(view), stream: `/events?path=${encodeURIComponent(path)}`, keys: options.keys}),
			{'content-security-policy': CSP, 'x-frame-options': 'DENY'},
		);
	};
}
