import {createServer} from 'node:http';
import {DEFAULT_BEARER_DAYS, describeScopes, parseScopes, SCOPES, type Scope} from '../../core/access.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {AccessError, approveConsent, denyConsent, mintScriptToken, revokeGrant} from '../../gates/access/person-acts.ts';
import {accessStorePath, openAccessStore, type AccessStore} from '../../ledger/access-store.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {parseCommandArgs, positiveInt} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {advertisedUrl, allowedHostnames, exposureWarning, listenOn, listenPlan} from '../listen.ts';
import {packageVersion} from '../package-root.ts';
import {nonEmptyAs, personName} from '../person-name.ts';
import {loadRepositories} from '../repository-file.ts';
import {createServeApp} from '../serve/app.ts';
import {stopOnSignals} from '../signals.ts';

/** Where `serve` listens unless told: loopback, this port. */
const DEFAULT_PORT = 8420;

const TOOLS = [
	['write_task', 'work:write', 'a task contract, Markdown or YAML as contract check reads it'],
	['file_bug', 'work:write', 'a bug contract: Problem, Reproduce, Expected, Hard to see'],
	['write_transfer', 'work:write', 'a transfer: how something was solved, for another place'],
	['list_work', 'work:read', 'the stored contracts, their states, who wrote each'],
	['get_work', 'work:read', 'one: state, holder, notes, hand-in, a verdict per line'],
] as const;

export const help: CommandHelp = {
	synopsis: [
		'serve [--listen ADDR:PORT] [--public-url URL] [--repo NAME=PATH]...',
		'serve approve [CODE] [--as NAME] [--scope SCOPE]... [--ready]',
		'serve deny CODE',
		'serve tokens list [--json]',
		'serve tokens new --scope SCOPE... [--name LABEL] [--days N] [--as NAME] [--ready]',
		'serve tokens revoke GRANT',
	],
	description: `A remote MCP server (Streamable HTTP at /mcp, stateless, JSON responses) through which a chat
assistant's connector or a teammate's script writes contracts for the agents on this machine, with
OAuth 2.1 (authorization-server and protected-resource metadata, dynamic client registration,
authorization code with PKCE S256 only, refresh tokens bound to their client, revocation) and a
health endpoint at /health. Loopback unless --listen says otherwise. Runs until stopped (SIGTERM:
exit 143). Docs: docs/serve.md.
Its tools (and the scope each needs):
${TOOLS.map(([name, scope, what]) => `  ${name} (${scope}): ${what}`).join('\n')}
No scope approves, accepts or answers anything. A written contract is a draft until a person
runs contract ready ID (or the token was given --ready).
approve: a person at a terminal approves the consent a browser shows (its CODE); without CODE,
lists the consents waiting. deny: the browser goes back with access_denied.
tokens new: a person mints a token for a script; the token is the last word printed, shown once,
stored hashed; it works at once. tokens list: every grant; tokens revoke: ends a grant and its
tokens.`,
	options: [
		[
			'--listen ADDR:PORT',
			`where to listen (default 127.0.0.1:${DEFAULT_PORT}; port 0: any free one); not loopback needs --public-url`,
		],
		['--public-url URL', 'the https address a TLS terminator in front serves, which the OAuth metadata advertises'],
		['--repo NAME=PATH', "a repository's checkout, over repositories.json (repeatable)"],
		['--as NAME', 'approve, tokens new: whom the grant writes for (default: your OS user)'],
		['--scope SCOPE', "approve: grant only these of the scopes asked; tokens new: the token's scopes (work:read, work:write)"],
		['--ready', 'approve, tokens new: contracts written with this grant are ready at once (no contract ready)'],
		['--name LABEL', 'tokens new: what the token is for, shown as its writer (default: script)'],
		['--days N', `tokens new: how long it works (default ${DEFAULT_BEARER_DAYS})`],
		['--json', 'tokens list: as JSON'],
	],
	exits: [
		['0', 'stopped cleanly; approve, deny, tokens: done'],
		['1', 'approve, deny, revoke: no such code or grant, expired, answered already'],
		['64', 'bad command line (--listen, --public-url, --scope, a non-loopback address without --public-url)'],
		['69', 'the port is taken'],
		['77', 'approve, tokens new: refused, the asker is an agent, not a person at a terminal (recorded)'],
		['78', 'repositories.json or the config file is wrong'],
		['128+N', 'stopped by signal N (SIGTERM 143, Ctrl-C 130), after closing its connections'],
	],
	examples: [
		['controlroom serve', `serves http://127.0.0.1:${DEFAULT_PORT}/mcp for a connector on this machine`],
		[
			'controlroom serve --listen 127.0.0.1:8420 --public-url https://cr.example.net',
			'behind a TLS terminator that forwards https://cr.example.net to it',
		],
		['controlroom serve approve KQ7M-3XPD', 'lets the assistant whose browser page shows this code in'],
		['controlroom serve tokens new --scope work:write --name ci', "a script's token; the last word is the token"],
	],
};

function withAccess<T>(ledgerFlag: string | undefined, fn: (ledger: Ledger, store: AccessStore) => T): T {
	const ledger = openCommandLedger(ledgerFlag, {mode: 'create'});
	try {
		const store = openAccessStore(accessStorePath(ledger.path));
		try {
			return fn(ledger, store);
		} finally {
			store.close();
		}
	} catch (error) {
		if (error instanceof AccessError) throw new CliError(terminalSafe(error.message));
		throw error;
	} finally {
		ledger.close();
	}
}

function scopesOf(flags: readonly string[] | undefined): Scope[] | undefined {
	if (flags === undefined || flags.length === 0) return undefined;
	const parsed = parseScopes(flags);
	if ('unknown' in parsed)
		throw new CliError(`--scope: '${terminalSafe(parsed.unknown)}' is not a scope (${SCOPES.join(', ')})`, USAGE_EXIT);
	return parsed.scopes;
}

const ago = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))}s`;

function approve(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('serve approve', argv, {
		as: {type: 'string'},
		scope: {type: 'string', multiple: true},
		ready: {type: 'boolean'},
	});
	if (positionals.length > 1) throw new CliError('serve approve: expected at most one CODE', USAGE_EXIT);
	const as = nonEmptyAs('serve approve', values.as);
	const scopes = scopesOf(values.scope);
	return withAccess(values.ledger, (ledger, store) => {
		const code = positionals[0];
		if (code === undefined) {
			const now = Date.now();
			const pending = store.pendingConsents(now);
			if (pending.length === 0) return (out('no consent waits for a person'), 0);
			out(
				pending
					.map(consent =>
						terminalSafe(
							`${consent.code}  ${consent.clientName} (returns to ${new URL(consent.redirectUri).host}) asks to ${describeScopes(consent.scopes.length > 0 ? consent.scopes : SCOPES)}; asked ${ago(now - consent.createdAt)} ago`,
						),
					)
					.join('\n'),
			);
			return 0;
		}
		const {grant, consent} = approveConsent(ledger, store, code, {as, scopes, isReadyAtOnce: values.ready === true});
		out(
			terminalSafe(
				`approved ${consent.code}: ${grant.clientName} may ${describeScopes(grant.scopes)} for ${grant.owner} (grant ${grant.id}${grant.isReadyAtOnce ? ', ready at once' : ''}); the browser moves on by itself`,
			),
		);
		return 0;
	});
}

function deny(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('serve deny', argv, {});
	const code = positionals[0];
	if (code === undefined || positionals.length > 1) throw new CliError('serve deny: expected one CODE', USAGE_EXIT);
	return withAccess(values.ledger, (_ledger, store) => {
		const consent = denyConsent(store, code, personName(undefined));
		out(terminalSafe(`denied ${consent.code}: ${consent.clientName} is sent back with access_denied`));
		return 0;
	});
}

function tokens(argv: readonly string[]): number {
	const [verb, ...rest] = argv;
	if (verb === 'list') {
		const {values, positionals} = parseCommandArgs('serve tokens list', rest, {json: {type: 'boolean'}});
		if (positionals.length > 0) throw new CliError('serve tokens list: takes no arguments', USAGE_EXIT);
		return withAccess(values.ledger, (_ledger, store) => {
			const now = Date.now();
			const grants = store.grants();
			if (values.json) return (out(terminalSafeJson({version: 1, grants}, 2)), 0);
			if (grants.length === 0) return (out("no grants: nothing can reach serve but with a person's yes"), 0);
			const state = (grant: (typeof grants)[number]): string =>
				grant.revokedAt !== null
					? `revoked by ${grant.revokedBy ?? '?'}`
					: grant.expiresAt !== null && grant.expiresAt <= now && grant.kind === 'script'
						? 'expired'
						: 'active';
			out(
				grants
					.map(grant =>
						terminalSafe(
							`${grant.id}  ${grant.kind.padEnd(9)} ${grant.clientName} for ${grant.owner}  ${grant.scopes.join(' ')}${grant.isReadyAtOnce ? ' ready-at-once' : ''}  ${state(grant)}  granted by ${grant.createdBy} ${new Date(grant.createdAt).toISOString()}`,
						),
					)
					.join('\n'),
			);
			return 0;
		});
	}
	if (verb === 'new') {
		const {values, positionals} = parseCommandArgs('serve tokens new', rest, {
			scope: {type: 'string', multiple: true},
			name: {type: 'string'},
			days: {type: 'string'},
			as: {type: 'string'},
			ready: {type: 'boolean'},
		});
		if (positionals.length > 0) throw new CliError('serve tokens new: takes no arguments', USAGE_EXIT);
		const scopes = scopesOf(values.scope);
		if (scopes === undefined)
			throw new CliError(`serve tokens new: --scope is required (${SCOPES.join(', ')}); say what the script may do`, USAGE_EXIT);
		const name = values.name?.trim() || 'script';
		const days = positiveInt('days', values.days) ?? DEFAULT_BEARER_DAYS;
		const as = nonEmptyAs('serve tokens new', values.as);
		return withAccess(values.ledger, (ledger, store) => {
			const {grant, token} = mintScriptToken(ledger, store, {name, scopes, days, as, isReadyAtOnce: values.ready === true});
			out(
				terminalSafe(
					`grant ${grant.id}: ${grant.clientName} may ${describeScopes(grant.scopes)} for ${grant.owner} for ${days} days; shown once, keep it secret; token: ${token}`,
				),
			);
			return 0;
		});
	}
	if (verb === 'revoke') {
		const {values, positionals} = parseCommandArgs('serve tokens revoke', rest, {});
		const id = positionals[0];
		if (id === undefined || positionals.length > 1) throw new CliError('serve tokens revoke: expected one GRANT', USAGE_EXIT);
		return withAccess(values.ledger, (ledger, store) => {
			const grant = revokeGrant(ledger, store, id, personName(undefined), 'revoked with serve tokens revoke');
			out(terminalSafe(`revoked ${grant.id} (${grant.clientName} for ${grant.owner}): its tokens stop working now`));
			return 0;
		});
	}
	throw new CliError('serve tokens: expected list, new or revoke', USAGE_EXIT);
}

async function serve(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('serve', argv, {
		listen: {type: 'string'},
		'public-url': {type: 'string'},
		repo: {type: 'string', multiple: true},
	});
	if (positionals.length > 0)
		throw new CliError(`serve: unexpected argument '${terminalSafe(positionals[0] ?? '')}' (approve, deny, tokens)`, USAGE_EXIT);
	const plan = listenPlan({listen: values.listen, publicUrl: values['public-url']}, DEFAULT_PORT);
	const repositories = loadRepositories(values.repo ?? []);
	const ledger = openCommandLedger(values.ledger, {mode: 'create', onMove: 'stay'});
	const store = openAccessStore(accessStorePath(ledger.path));
	const log = (line: string): void => void process.stderr.write(`controlroom serve: ${terminalSafe(line)}\n`);
	const stopping = stopOnSignals();
	const http = createServer();
	// Longer than the keep-alive of the proxies and clients in front (their default is 60 s), so a
	// connection is never closed by us the moment a client sends on it again.
	http.keepAliveTimeout = 65_000;
	http.headersTimeout = 66_000;
	try {
		const port = await listenOn(http, plan, 'serve');
		const baseUrl = advertisedUrl(plan, port);
		const app = createServeApp({
			ledger,
			store,
			repositories,
			baseUrl,
			allowedHostnames: allowedHostnames(plan),
			version: packageVersion(),
			log,
		});
		http.on('request', app);
		const warning = exposureWarning(plan);
		if (warning !== null) log(`warning: ${warning}`);
		out(`serve: listening on ${plan.host}:${port}; connector URL ${new URL('/mcp', baseUrl).href}`);
		await new Promise<void>(resolve => stopping.signal.addEventListener('abort', () => resolve(), {once: true}));
		await new Promise<void>(resolve => {
			http.close(() => resolve());
			http.closeIdleConnections();
		});
		return stopping.exitCode() ?? 0;
	} finally {
		stopping.dispose();
		http.closeAllConnections();
		store.close();
		ledger.close();
	}
}

/** `controlroom serve`, and the person's commands beside it. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'approve') return approve(rest);
	if (verb === 'deny') return deny(rest);
	if (verb === 'tokens') return tokens(rest);
	return serve(argv);
}
