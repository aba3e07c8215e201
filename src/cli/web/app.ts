import type {IncomingMessage, ServerResponse} from 'node:http';
import {csrfOf, isCsrfOf, SESSION_SECONDS, sessionOf, startSession} from '../../gates/web/sign-in.ts';
import type {WebSessionRow, WebStore} from '../../ledger/web-store.ts';
import {DEFAULT_COLS, type BoardHub, type WebView} from './board-hub.ts';
import {cookieOf, isBodyTooLarge, readForm, refuseBody, send, sendText} from './http-bits.ts';
import {answeredPage, BOARD_CSS, linkRefusedPage, pageHtml, questionPage, signInNeededPage, signInPage} from './page.ts';
import {taskHref} from './render.ts';

// The web board's HTTP app (docs/web.md): the page, its stream, its script and stylesheet, and
// signing in. Plain node:http: a handful of routes need no framework. Every page but sign-in needs a
// session; every response forbids what the page never does (inline script, framing, other origins).

/** The page's policy: its own script and stylesheet only, no frames, forms to itself. */
const CSP =
	"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = {'content-security-policy': CSP, 'x-frame-options': 'DENY'};

/** How often an open stream checks that its session still stands (a revoked session's pages stop within this). */
const SESSION_CHECK_MS = 2000;

/** An answer a signed-in person gave on a question's page, as its form carried it. */
export type WebAnswer = {
	readonly id: string;
	/** The arguments' hash the page showed: the answer is for that call only. */
	readonly hash: string;
	readonly answer: 'allow' | 'deny';
	readonly reason: string | null;
	/**
	 * The passkey's signature over this answer (docs/passkeys.md), as the page posted it: the signed
	 * answer the server made and the authenticator's assertion, untrusted JSON the gate checks.
	 */
	readonly passkey?: {readonly signed: unknown; readonly response: unknown};
};

/** What the page asks for before the passkey signs: the question, the hash shown, the answer. */
export type WebAnswerStart = Pick<WebAnswer, 'id' | 'hash' | 'answer'>;

export type WebAppOptions = {
	/** Carries out an answer through the gate the CLI uses; returns what was done, or throws one line why not. */
	readonly answer: (answer: WebAnswer, session: WebSessionRow) => Promise<string>;
	/**
	 * The browser's passkey prompt for one answer: the signed answer and navigator.credentials.get's
	 * options, as JSON. Throws one line when the question is not open, its hash is not the one
	 * shown, or no passkey is enrolled.
	 */
	readonly answerOptions: (start: WebAnswerStart) => Promise<{readonly signed: unknown; readonly options: unknown}>;
	/** Whether the page signs answers with a passkey: one is enrolled (and, under approvals: passkey, only such answers count). */
	readonly isPasskeyOn: () => boolean;
	readonly hub: BoardHub;
	readonly store: WebStore;
	/** The pages' scripts, bundled: dist/web/board.js (the board), dist/web/answer.js (a question's passkey). */
	readonly script: (name: 'board' | 'answer') => string;
	/** Host header names accepted (DNS rebinding): src/cli/listen.ts's `allowedHostnames`. */
	readonly allowedHostnames: readonly string[];
	/** The address people reach it at: its scheme decides `Secure` cookies, its origin the answers' Origin. */
	readonly baseUrl: URL;
	/** The key table's keys for the page's navigation commands. */
	readonly keys: Readonly<Record<string, readonly string[]>>;
	readonly now?: () => number;
	/** A line on the server's stderr (an answer that failed, and why). */
	readonly log: (line: string) => void;
};

/** A request's session: its row and its cookie's secret (for the CSRF token). */
type Signed = {readonly session: WebSessionRow; readonly secret: string};

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

/** The event stream of one view: the board's HTML at once and whenever it changes; it ends when the session does. */
function stream(hub: BoardHub, view: WebView, request: IncomingMessage, response: ServerResponse, isLive: () => boolean): void {
	response.writeHead(200, {
		'content-type': 'text/event-stream; charset=utf-8',
		'cache-control': 'no-store',
		'x-content-type-options': 'nosniff',
		connection: 'keep-alive',
	});
	// One event: each line of the HTML its own `data:` line.
	const unsubscribe = hub.subscribe(view, html => {
		response.write(`event: board\ndata: ${html.split('\n').join('\ndata: ')}\n\n`);
	});
	let beats = 0;
	const check = setInterval(() => {
		if (!isLive()) {
			// The page is told, so it stops reconnecting and shows the sign-in page.
			response.end('event: signed-out\ndata: \n\n');
			return;
		}
		if ((beats += 1) % 10 === 0) response.write(': keep-alive\n\n');
	}, SESSION_CHECK_MS);
	const end = (): void => {
		clearInterval(check);
		unsubscribe();
	};
	request.on('close', end);
	response.on('close', end);
}

/** The request handler. */
export function createWebApp(options: WebAppOptions): (request: IncomingMessage, response: ServerResponse) => void {
	const {hub, store, answerOptions} = options;
	const now = options.now ?? Date.now;
	const isSecure = options.baseUrl.protocol === 'https:';
	// `__Host-` binds the cookie to this host and path where it can be Secure.
	const cookieName = isSecure ? '__Host-controlroom' : 'controlroom';
	const cookie = (value: string, maxAge: number): string =>
		`${cookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${isSecure ? '; Secure' : ''}`;
	const signedIn = (request: IncomingMessage): Signed | null => {
		const secret = cookieOf(request, cookieName);
		const session = sessionOf(store, secret, now());
		return session === null || secret === undefined ? null : {session, secret};
	};
	/**
	 * A form from this site's own page: the browser says it is same-origin (Sec-Fetch-Site) or names
	 * our origin, and, once signed in, it carries the session's CSRF token.
	 */
	const isOwnForm = (request: IncomingMessage, form: URLSearchParams, signed: Signed | null): boolean => {
		const site = request.headers['sec-fetch-site'];
		if (site !== undefined && site !== 'same-origin') return false;
		const origin = request.headers.origin;
		if (origin !== undefined && origin !== 'null' && origin !== options.baseUrl.origin && !isLoopbackOrigin(origin, request))
			return false;
		return signed === null || isCsrfOf(signed.secret, form.get('csrf') ?? '');
	};

	const post = async (url: URL, request: IncomingMessage, response: ServerResponse): Promise<void> => {
		const form = await readForm(request);
		if (form === null) return refuseBody(request, response);
		const signed = signedIn(request);
		if (url.pathname === '/signin') {
			if (!isOwnForm(request, form, null)) return sendText(response, 403, 'a sign-in comes from this site only');
			const started = startSession(store, form.get('link') ?? '', String(request.headers['user-agent'] ?? ''), now());
			if (started === null) return send(response, 403, 'text/html; charset=utf-8', linkRefusedPage(), PAGE_HEADERS);
			response.setHeader('set-cookie', cookie(started.secret, SESSION_SECONDS));
			return send(response, 303, 'text/plain; charset=utf-8', 'signed in\n', {location: '/'});
		}
		if (signed === null) return send(response, 401, 'text/html; charset=utf-8', signInNeededPage(), PAGE_HEADERS);
		if (!isOwnForm(request, form, signed)) return sendText(response, 403, 'refused: not a form of this page (CSRF)');
		if (url.pathname === '/signout') {
			store.revoke({id: signed.session.id}, signed.session.person, now());
			response.setHeader('set-cookie', cookie('', 0));
			return send(response, 303, 'text/plain; charset=utf-8', 'signed out\n', {location: '/'});
		}
		if (url.pathname === '/answer' || url.pathname === '/answer/begin') {
			const id = form.get('id') ?? '';
			const answer = form.get('answer');
			if (!/^d-[0-9a-f]{12}$/.test(id) || (answer !== 'allow' && answer !== 'deny'))
				return sendText(response, 400, 'an answer names a question (id) and allow or deny');
			const hash = form.get('hash') ?? '';
			if (url.pathname === '/answer/begin') {
				// The passkey's prompt for this answer: JSON for the page's script.
				try {
					const made = await answerOptions({id, hash, answer});
					return send(response, 200, 'application/json', JSON.stringify(made));
				} catch (error) {
					return send(response, 409, 'application/json', JSON.stringify({error: messageOf(error)}));
				}
			}
			const reason = (form.get('reason') ?? '').trim();
			const signedAnswer = form.get('signed');
			const assertion = form.get('assertion');
			try {
				const passkey = signedAnswer && assertion ? {signed: parseJson(signedAnswer), response: parseJson(assertion)} : undefined;
				const done = await options.answer(
					{id, hash, answer, reason: reason === '' ? null : reason, ...(passkey ? {passkey} : {})},
					signed.session,
				);
				return send(response, 200, 'text/html; charset=utf-8', answeredPage(done, true), PAGE_HEADERS);
			} catch (error) {
				return send(response, 409, 'text/html; charset=utf-8', answeredPage(messageOf(error), false), PAGE_HEADERS);
			}
		}
		return sendText(response, 404, 'no such answer');
	};

	const get = (url: URL, request: IncomingMessage, response: ServerResponse): void => {
		if (url.pathname === '/board.js') return send(response, 200, 'text/javascript; charset=utf-8', options.script('board'));
		if (url.pathname === '/answer.js') return send(response, 200, 'text/javascript; charset=utf-8', options.script('answer'));
		if (url.pathname === '/board.css') return send(response, 200, 'text/css; charset=utf-8', BOARD_CSS);
		if (url.pathname === '/health') return send(response, 200, 'application/json', '{"status":"ok"}');
		const link = /^\/signin\/([A-Za-z0-9_-]{1,100})$/.exec(url.pathname);
		if (link?.[1] !== undefined) return send(response, 200, 'text/html; charset=utf-8', signInPage(link[1]), PAGE_HEADERS);
		const signed = signedIn(request);
		if (signed === null) {
			if (url.pathname === '/events') return sendText(response, 401, 'sign in first');
			return send(response, 401, 'text/html; charset=utf-8', signInNeededPage(), PAGE_HEADERS);
		}
		if (url.pathname === '/events') {
			const view = viewOf(url.searchParams.get('path') ?? '/', colsOf(url));
			if (view === null) return sendText(response, 404, 'no such view');
			const secret = signed.secret;
			return stream(hub, view, request, response, () => sessionOf(store, secret, now()) !== null);
		}
		const question = /^\/decision\/(d-[0-9a-f]{12})$/.exec(url.pathname)?.[1];
		if (question !== undefined) {
			const decision = hub.decision(question);
			return send(
				response,
				decision === undefined ? 404 : 200,
				'text/html; charset=utf-8',
				questionPage(hub.questionHtml(question, colsOf(url)), decision, csrfOf(signed.secret), now(), options.isPasskeyOn()),
				PAGE_HEADERS,
			);
		}
		const view = viewOf(url.pathname, colsOf(url));
		if (view === null) return sendText(response, 404, 'no such page');
		const path = view.taskId === null ? url.pathname : taskHref(view.taskId);
		const title = view.taskId === null ? 'controlroom' : `controlroom · ${view.taskId}`;
		send(
			response,
			200,
			'text/html; charset=utf-8',
			pageHtml({
				title,
				board: hub.html(view),
				stream: `/events?path=${encodeURIComponent(path)}`,
				keys: options.keys,
				csrf: csrfOf(signed.secret),
			}),
			PAGE_HEADERS,
		);
	};

	return (request, response) => {
		const hostname = hostnameOf(request);
		if (hostname === null || !options.allowedHostnames.includes(hostname))
			return sendText(response, 421, 'this server does not answer for that Host');
		if (isBodyTooLarge(request)) return refuseBody(request, response);
		const url = new URL(request.url ?? '/', 'http://web.invalid');
		if (request.method === 'POST')
			return void post(url, request, response).catch((error: unknown) => {
				options.log(`${url.pathname}: ${error instanceof Error ? error.message : String(error)}`);
				if (!response.headersSent) sendText(response, 500, 'the answer failed; the server says why on its stderr');
			});
		if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'method not allowed');
		get(url, request, response);
	};
}

/** An Origin of this server reached on loopback (the Host it was asked at), as a browser on this machine sends. */
function isLoopbackOrigin(origin: string, request: IncomingMessage): boolean {
	return origin === `http://${request.headers.host ?? ''}`;
}

/** An error's one line. */
function messageOf(error: unknown): string {
	return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** A form field holding JSON (the page's passkey fields); a field that is not JSON is kept as text, which the check refuses. */
function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}
