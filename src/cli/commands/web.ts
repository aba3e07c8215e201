import {readFileSync} from 'node:fs';
import {createServer} from 'node:http';
import {join} from 'node:path';
import {BoardCommand, KEY_TABLE, type KeyBinding} from '../../core/board/keymap.ts';
import {defaultHeadroom} from '../../core/board/decisions-view.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {answerDecision, decisionAnswerWord} from '../../gates/decisions.ts';
import {answerOptions, approvalsPolicy, localRelyingParty, verifyAnswer, type PasskeyProof} from '../../gates/passkey/index.ts';
import type {RelyingParty} from '../../gates/passkey/relying-party.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import {LINK_SECONDS, makeSignInLink} from '../../gates/web/sign-in.ts';
import {accessStorePath} from '../../ledger/access-store.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {openWebStore, type WebSessionRow, type WebStore} from '../../ledger/web-store.ts';
import {parseCommandArgs} from '../args.ts';
import {boardLook} from '../board-look.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {PORT_TAKEN_EXIT as UNAVAILABLE_EXIT} from '../otel-receive.ts';
import type {CommandHelp} from '../help.ts';
import {advertisedUrl, allowedHostnames, exposureWarning, listenOn, listenPlan} from '../listen.ts';
import {packageRoot} from '../package-root.ts';
import {personName} from '../person-name.ts';
import {readWebAddress, removeWebAddress, writeWebAddress} from '../../ledger/web-address.ts';
import {stopOnSignals} from '../signals.ts';
import {createWebApp} from '../web/app.ts';
import {createBoardHub} from '../web/board-hub.ts';
import {boardAdapters} from './board.ts';

/** Where `web` listens unless told: loopback, this port (serve's is 8420). */
const DEFAULT_PORT = 8421;

export const help: CommandHelp = {
	synopsis: [
		'web [--listen ADDR:PORT] [--public-url URL]',
		'web link',
		'web sessions [--json]',
		'web revoke SESSION | --all',
		'web enroll --name NAME [--port N] [--timeout 5m]',
	],
	description: `The board in a browser: the same panels as the terminal board, live (an event stream),
a task's timeline and why at /task/ID, the board's keys (j/k, enter, esc, ?) where a keyboard
exists, one column at a phone's width. The first response carries the board, so the page reads
without its script. Loopback unless --listen says otherwise, as serve. Runs until stopped
(SIGTERM: exit 143). Docs: docs/web.md.
Every page needs a session, and a session starts only from a sign-in link:
link: a person at a terminal gets a one-time link (five minutes) to the running server's own
address; an agent's is refused (exit 77, recorded). sessions: every session, live, expired or
revoked. revoke: ends a session (or every one) at once; its pages stop within seconds.
Answers are signed by a passkey once one is enrolled (docs/passkeys.md); under approvals: passkey
nothing else answers. enroll: a person at a terminal adds a passkey. It lists every enrolled
passkey (name, id, when), so you see one you did not make, then prints a one-time link to a page
this command serves on loopback (http://localhost:PORT/...); open it in a browser on this machine
and confirm with your fingerprint, face or PIN. Once a passkey is enrolled, another needs an
answer signed by an enrolled one first.`,
	options: [
		[
			'--listen ADDR:PORT',
			`where to listen (default 127.0.0.1:${DEFAULT_PORT}; port 0: any free one); not loopback needs --public-url`,
		],
		['--public-url URL', 'the https address a TLS terminator in front serves (the address links name)'],
		['--json', 'sessions: as JSON'],
		['--all', 'revoke: every live session'],
		['--name NAME', 'enroll: what you call this passkey ("laptop Touch ID"); required'],
		['--port N', 'enroll: the loopback port of the page (default: any free port)'],
		['--timeout D', 'enroll: how long the link works (default 5m)'],
	],
	exits: [
		['0', 'stopped cleanly; link, sessions, revoke: done; enroll: enrolled'],
		['1', 'revoke: no such live session; enroll: the time was up, or the registration was refused'],
		['64', 'bad command line (--listen, --public-url, a non-loopback address without --public-url)'],
		['69', 'the port is taken; link: no web board runs for this ledger'],
		['77', 'link, enroll: refused, the asker is an agent, not a person at a terminal (recorded)'],
		['78', 'the config file is wrong'],
		['128+N', 'stopped by signal N (SIGTERM 143, Ctrl-C 130), after closing its connections'],
	],
	examples: [
		['controlroom web', `the board at http://127.0.0.1:${DEFAULT_PORT}/ for a browser on this machine`],
		['controlroom web link', 'prints a one-time sign-in link to open in the browser'],
		['controlroom web enroll --name "laptop Touch ID"', "enroll this laptop's passkey"],
		['ssh -L 8421:127.0.0.1:8421 workstation', "from a laptop: the workstation's board at http://127.0.0.1:8421/"],
	],
};

/** The keys of the commands the page answers, from the key table in force. */
function pageKeys(table: readonly KeyBinding[]): Record<string, readonly string[]> {
	// The page is the board's list (and a drill-down's timeline): the keys those modes give each command.
	const of = (command: BoardCommand): readonly string[] =>
		table.filter(binding => binding.command === command && binding.modes.includes('list')).flatMap(binding => binding.keys);
	return {
		down: of(BoardCommand.down),
		up: of(BoardCommand.up),
		open: of(BoardCommand.open),
		back: of(BoardCommand.back),
		help: of(BoardCommand.help),
	};
}

/**
 * Where people reach the page: the public URL, or, on loopback, http://localhost:PORT (WebAuthn
 * takes no IP address as the relying party, and localhost is a secure context; docs/passkeys.md).
 */
function pageAddress(plan: ReturnType<typeof listenPlan>, port: number): URL {
	if (plan.publicUrl === null && ['127.0.0.1', '::1', 'localhost'].includes(plan.host))
		return new URL(`http://localhost:${port}/`);
	return advertisedUrl(plan, port);
}

/** The relying party passkeys answer for: the page's host name and origin. */
function relyingParty(baseUrl: URL): RelyingParty {
	if (baseUrl.hostname === 'localhost') return localRelyingParty(Number(baseUrl.port));
	return {rpId: baseUrl.hostname, rpName: 'controlroom', origins: [baseUrl.origin]};
}

async function web(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('web', argv, {
		listen: {type: 'string'},
		'public-url': {type: 'string'},
	});
	if (positionals.length > 0) throw new CliError(`web: unexpected argument '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	const plan = listenPlan({listen: values.listen, publicUrl: values['public-url']}, DEFAULT_PORT);
	const look = boardLook();
	const ledger = openCommandLedger(values.ledger, {mode: 'create', onMove: 'stay'});
	const log = (line: string): void => void process.stderr.write(`controlroom web: ${terminalSafe(line)}\n`);
	const stopping = stopOnSignals();
	const http = createServer();
	http.keepAliveTimeout = 65_000;
	http.headersTimeout = 66_000;
	const adapters = boardAdapters(ledger, {isBellOn: false, look});
	const store = openWebStore(accessStorePath(ledger.path));
	const hub = createBoardHub(adapters);
	const scripts = new Map<string, string>();
	try {
		const port = await listenOn(http, plan, 'web');
		const baseUrl = pageAddress(plan, port);
		const rp = relyingParty(baseUrl);
		writeWebAddress(ledger.path, baseUrl);
		/** What an answer signs: a budget question allowed adds what the board's allow adds (docs/decisions.md). */
		const headroomOf = (id: string, answer: 'allow' | 'deny'): number | null => {
			const decision = hub.decision(id);
			return answer === 'allow' && decision?.kind === 'budget' ? defaultHeadroom(decision) : null;
		};
		http.on(
			'request',
			createWebApp({
				hub,
				store,
				baseUrl,
				isPasskeyOn: () => readPasskeys(ledger.reader).passkeys.length > 0,
				answerOptions: async given => {
					const decision = hub.decision(given.id);
					if (decision === undefined) throw new Error(`${given.id}: no such question`);
					if (decision.argsHash !== given.hash)
						throw new Error(`${given.id}: the call shown is not the call asked about (its arguments' hash differs); look again`);
					return answerOptions(ledger, rp, {
						item: {kind: 'decision', id: decision.id},
						digest: decision.argsHash,
						answer: decisionAnswerWord(given.answer, headroomOf(given.id, given.answer)),
					});
				},
				answer: async (given, session) => {
					// A passkey's answer is checked here (signature, origin, user verification, expiry, nonce); the
					// gate then refuses it unless it signed this question, this hash and this answer, and records it.
					const passkey: PasskeyProof | undefined =
						given.passkey === undefined ? undefined : await verifyAnswer(ledger, rp, given.passkey);
					const record = answerDecision(ledger, given.id, given.answer, given.reason, headroomOf(given.id, given.answer), {
						source: 'web',
						door: {kind: 'web', sessionId: session.id, person: session.person},
						shownArgsHash: given.hash,
						...(passkey ? {passkey} : {}),
					});
					hub.refresh();
					const who = passkey ? `passkey ${passkey.passkey.name}` : session.person;
					return `${given.answer === 'allow' ? 'allowed' : 'denied'} ${record.id} (${record.tool}) for ${who}; the agent goes on`;
				},
				log,
				script: name => {
					const known = scripts.get(name) ?? readFileSync(join(packageRoot(), 'dist', 'web', `${name}.js`), 'utf8');
					scripts.set(name, known);
					return known;
				},
				allowedHostnames: allowedHostnames(plan),
				keys: pageKeys(look.keyTable ?? KEY_TABLE),
			}),
		);
		const warning = exposureWarning(plan);
		if (warning !== null) log(`warning: ${warning}`);
		if (approvalsPolicy(ledger) === 'passkey' && readPasskeys(ledger.reader).passkeys.length === 0)
			log(
				'approvals: passkey is on and no passkey is enrolled: nothing can be answered until a person runs `controlroom web enroll`',
			);
		out(`web: listening on ${plan.host}:${port}; the board at ${baseUrl.href}`);
		await new Promise<void>(resolve => stopping.signal.addEventListener('abort', () => resolve(), {once: true}));
		await new Promise<void>(resolve => {
			http.close(() => resolve());
			http.closeIdleConnections();
			http.closeAllConnections();
		});
		return stopping.exitCode() ?? 0;
	} finally {
		stopping.dispose();
		removeWebAddress(ledger.path);
		hub.close();
		store.close();
		http.closeAllConnections();
		ledger.close();
	}
}

function withStore<T>(ledgerFlag: string | undefined, fn: (ledger: Ledger, store: WebStore) => T): T {
	const ledger = openCommandLedger(ledgerFlag, {mode: 'create'});
	try {
		const store = openWebStore(accessStorePath(ledger.path));
		try {
			return fn(ledger, store);
		} finally {
			store.close();
		}
	} finally {
		ledger.close();
	}
}

/** `web link`: a person at a terminal gets a one-time sign-in link to the running server's own address. */
function link(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('web link', argv, {});
	if (positionals.length > 0) throw new CliError('web link: takes no arguments', USAGE_EXIT);
	return withStore(values.ledger, (ledger, store) => {
		const address = readWebAddress(ledger.path);
		if (address === null)
			throw new CliError(
				`web link: no controlroom web runs for ${ledger.path}; start it first (controlroom web)`,
				UNAVAILABLE_EXIT,
			);
		const {secret} = makeSignInLink(ledger, store, Date.now());
		out(`sign in within ${LINK_SECONDS / 60} minutes, once: ${new URL(`/signin/${secret}`, address).href}`);
		return 0;
	});
}

function sessions(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('web sessions', argv, {json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError('web sessions: takes no arguments', USAGE_EXIT);
	return withStore(values.ledger, (_ledger, store) => {
		const now = Date.now();
		const rows = store.sessions();
		if (values.json) return (out(terminalSafeJson({version: 1, sessions: rows}, 2)), 0);
		if (rows.length === 0) return (out('no web sessions: nobody signed in to the web board'), 0);
		const state = (row: WebSessionRow): string =>
			row.revokedAt !== null ? `revoked by ${row.revokedBy ?? '?'}` : row.expiresAt <= now ? 'expired' : 'live';
		out(
			rows
				.map(row =>
					terminalSafe(
						`${row.id}  ${row.person}  ${state(row)}  signed in ${new Date(row.createdAt).toISOString()}  ${row.userAgent}`,
					),
				)
				.join('\n'),
		);
		return 0;
	});
}

function revoke(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('web revoke', argv, {all: {type: 'boolean'}});
	const id = positionals[0];
	if ((id === undefined) === (values.all !== true) || positionals.length > 1)
		throw new CliError('web revoke: expected one SESSION, or --all', USAGE_EXIT);
	return withStore(values.ledger, (_ledger, store) => {
		const count = store.revoke(id === undefined ? {all: true} : {id}, personName(undefined), Date.now());
		if (id !== undefined && count === 0) throw new CliError(`web revoke: no live session '${terminalSafe(id)}'`);
		out(`revoked ${count} session${count === 1 ? '' : 's'}: their pages stop within seconds`);
		return 0;
	});
}

/** `controlroom web`, and the person's commands beside it. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'link') return link(rest);
	if (verb === 'sessions') return sessions(rest);
	if (verb === 'revoke') return revoke(rest);
	if (verb === 'enroll') return (await import('./web-enroll.ts')).runEnroll(rest);
	return web(argv);
}
