import {createHash} from 'node:crypto';
import express, {type NextFunction, type Request, type Response} from 'express';
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {requireBearerAuth} from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {getOAuthProtectedResourceMetadataUrl, mcpAuthRouter} from '@modelcontextprotocol/sdk/server/auth/router.js';
import {hostHeaderValidation} from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {SCOPES, TOOL_SCOPES} from '../../core/access.ts';
import {HandoffError} from '../../handoff/claims.ts';
import {registerReadTools, registerWriteTools, type IntakeToolContext} from '../../handoff/intake-tools.ts';
import type {RepositoryMap} from '../../handoff/repository-map.ts';
import type {AccessStore} from '../../ledger/access-store.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {secretHash} from '../../gates/access/tokens.ts';
import {sendEndPage} from './consent-page.ts';
import {ControlroomOAuthProvider, grantFactsOf} from './oauth-provider.ts';

/**
 * The largest body `/mcp` reads: a contract is at most 1 MiB of text, and JSON can escape it to
 * about twice that. A bigger call is answered 413 before it is parsed, and recorded.
 */
export const MAX_MCP_BODY_BYTES = 2 * 1024 * 1024;

/** What the app serves with. */
export type ServeApp = {
	readonly ledger: Ledger;
	readonly store: AccessStore;
	readonly repositories: RepositoryMap;
	/** The address the OAuth metadata advertises (`--public-url`, else where it listens). */
	readonly baseUrl: URL;
	readonly allowedHostnames: readonly string[];
	readonly version: string;
	/** A line for the server's log (stderr). */
	readonly log: (line: string) => void;
};

/** The instructions a connector's model reads when it connects. */
const INSTRUCTIONS = `controlroom hands work to coding agents on the person's own machine. Write a contract with write_task (or file_bug, write_transfer): the same Markdown you would write for a person (## Goal, ## Context, ## Acceptance with lines a script or a person can check, ## Acceptors, ...). It is checked; a refusal lists one problem per line: fix them and call again. A stored contract is a draft until the person marks it ready; then an agent takes it, works it under the person's gates and hands it in with evidence. No tool approves or accepts anything: only the person does. Mark any value you guessed with (guess).`;

/** Keeps a refusal in the ledger's rejects (origin serve): at most one a minute for the same reason, all counted. */
function refusalRecorder(ledger: Ledger, log: (line: string) => void): (reason: string) => void {
	return reason => {
		const minute = Math.floor(Date.now() / 60_000);
		const key = `serve:${createHash('sha1').update(reason).digest('hex').slice(0, 16)}:${minute}`;
		try {
			ledger.writer.bump('serve.refused');
			if (ledger.writer.reject({origin: 'serve', line: null, reason, raw: null, dedupKey: key})) log(`refused: ${reason}`);
		} catch {
			// A ledger that cannot take it: the refusal was still answered.
		}
	};
}

/** The error code an OAuth or JSON-RPC answer carried, for the record (never a token or a body's value). */
function errorOf(body: unknown): string | null {
	if (body === null || typeof body !== 'object') return null;
	const error = (body as {error?: unknown}).error;
	if (typeof error === 'string') return error;
	if (error !== null && typeof error === 'object') {
		const {code, message} = error as {code?: unknown; message?: unknown};
		return `${String(code)} ${typeof message === 'string' ? message.slice(0, 200) : ''}`.trim();
	}
	return null;
}

/**
 * Records every refused request when it is answered: a 4xx (but a first call with no token, which
 * is how a connector discovers the server, 404s and 405s), or a redirect carrying an OAuth error.
 */
function recordRefusals(record: (reason: string) => void) {
	return (req: Request, res: Response, next: NextFunction): void => {
		let sent: unknown = null;
		const json = res.json.bind(res);
		res.json = (body: unknown) => {
			sent = body;
			return json(body);
		};
		res.on('finish', () => {
			const status = res.statusCode;
			// The path as asked: a router the request went through may have cut its own prefix off req.path.
			const where = `${req.method} ${new URL(req.originalUrl, 'http://localhost').pathname}`;
			const location = res.getHeader('location');
			if (status >= 300 && status < 400 && typeof location === 'string' && /[?&]error=/.test(location)) {
				const error = new URL(location).searchParams.get('error') ?? 'error';
				record(`${where}: redirected with ${error}`);
				return;
			}
			// 404 and 405 are no refusals: a client that opens a stream on GET /mcp is told this server has none.
			if (status < 400 || status === 404 || status === 405) return;
			if (status === 401 && req.headers.authorization === undefined) return;
			const detail = errorOf(sent) ?? (res.getHeader('www-authenticate') as string | undefined) ?? '';
			record(`${where}: ${status} ${detail}`.trim());
		});
		next();
	};
}

/** The scope a JSON-RPC body's tool calls need beyond the token's, or null. */
function missingScope(body: unknown, scopes: readonly string[]): string | null {
	const messages = Array.isArray(body) ? body : [body];
	for (const message of messages) {
		const {method, params} = (message ?? {}) as {method?: unknown; params?: {name?: unknown}};
		if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
		const needed = TOOL_SCOPES[params.name];
		if (needed !== undefined && !scopes.includes(needed)) return needed;
	}
	return null;
}

/** The JSON-RPC error an HTTP refusal carries, for a client that reads the body. */
function rpcError(res: Response, status: number, code: number, message: string): void {
	res.status(status).json({jsonrpc: '2.0', error: {code, message}, id: null});
}

/** Builds the server: OAuth (the SDK's router), the consent page, `/mcp` (stateless, JSON), `/health`. */
export function createServeApp(options: ServeApp): express.Express {
	const {ledger, store, baseUrl} = options;
	const mcpUrl = new URL('/mcp', baseUrl);
	const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
	const provider = new ControlroomOAuthProvider(store, ledger, mcpUrl, id => new URL(`/consent/${id}`, baseUrl));
	const record = refusalRecorder(ledger, options.log);
	const app = express();
	app.disable('x-powered-by');
	// Behind a TLS terminator on this machine, the client's address is the one it forwards (the rate limits count per client).
	app.set('trust proxy', 'loopback');
	app.use(hostHeaderValidation([...options.allowedHostnames]));
	app.use(recordRefusals(record));

	app.get('/health', (_req, res) => {
		res.json({status: 'ok', version: options.version});
	});

	// Client secrets are kept hashed: what a client sends is hashed before the SDK compares it with the stored hash.
	app.use(['/token', '/revoke'], express.urlencoded({extended: false, limit: '16kb'}), (req, _res, next) => {
		const body = req.body as Record<string, unknown> | undefined;
		if (body && typeof body['client_secret'] === 'string') body['client_secret'] = secretHash(body['client_secret']);
		next();
	});
	app.use(
		mcpAuthRouter({
			provider,
			issuerUrl: baseUrl,
			resourceServerUrl: mcpUrl,
			scopesSupported: [...SCOPES],
			resourceName: 'controlroom',
			serviceDocumentationUrl: new URL('https://www.npmjs.com/package/controlroom'),
		}),
	);

	app.get('/consent/:id', (req, res) => {
		const consent = store.consentById(secretHash(String(req.params['id'])));
		if (consent === undefined) return sendEndPage(res, 404, 'No such consent', 'Start again from your assistant.');
		const back = (params: Record<string, string>): void => {
			const target = new URL(consent.redirectUri);
			for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
			if (consent.state !== null) target.searchParams.set('state', consent.state);
			res.set('Cache-Control', 'no-store').redirect(302, target.href);
		};
		if (consent.deniedAt !== null) return back({error: 'access_denied', error_description: 'a person denied it'});
		if (consent.approvedAt !== null) {
			const code = provider.mintAuthorizationCode(consent.idHash);
			if (code !== null) return back({code});
			return sendEndPage(res, 200, 'Connected', 'This consent was approved and handed to the client. You can close this page.');
		}
		if (consent.expiresAt <= Date.now()) return back({error: 'access_denied', error_description: 'nobody approved it in time'});
		provider.showConsent(res, consent);
	});

	const bearer = requireBearerAuth({verifier: provider, resourceMetadataUrl});
	const body = express.json({limit: MAX_MCP_BODY_BYTES, type: () => true});
	const context = (req: Request): IntakeToolContext => ({
		ledger,
		repositories: options.repositories,
		origin: 'serve',
		writerOf: () => {
			const grant = grantFactsOf(req.auth);
			if (grant === null || !req.auth?.scopes.includes('work:write'))
				throw new HandoffError('this token may not write contracts (it has no work:write)');
			return {
				writer: {client: grant.clientName, owner: grant.owner, via: 'serve', grant: grant.grantId, host: null},
				readyAtOnce: grant.isReadyAtOnce ? {by: grant.createdBy} : null,
			};
		},
	});
	app.post('/mcp', bearer, body, async (req, res) => {
		const needed = missingScope(req.body, req.auth?.scopes ?? []);
		if (needed !== null) {
			res.set(
				'WWW-Authenticate',
				`Bearer error="insufficient_scope", error_description="this call needs ${needed}", scope="${needed}", resource_metadata="${resourceMetadataUrl}"`,
			);
			res.status(403).json({
				error: 'insufficient_scope',
				error_description: `this call needs ${needed}; no scope approves or accepts anything`,
			});
			return;
		}
		const server = new McpServer({name: 'controlroom', version: options.version}, {instructions: INSTRUCTIONS});
		registerWriteTools(server, context(req));
		registerReadTools(server, context(req));
		const transport = new StreamableHTTPServerTransport({sessionIdGenerator: undefined, enableJsonResponse: true});
		res.on('close', () => {
			void transport.close();
			void server.close();
		});
		await server.connect(transport);
		await transport.handleRequest(req, res, req.body);
	});
	// Stateless: no stream to open, no session to end.
	app.all('/mcp', (_req, res) => {
		res.set('Allow', 'POST');
		rpcError(res, 405, -32000, 'method not allowed: this server is stateless; POST JSON-RPC to /mcp');
	});

	// A body too big, JSON that does not parse: one JSON-RPC error, never a stack.
	app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
		if (res.headersSent) return next(error);
		const type = (error as {type?: unknown}).type;
		if (type === 'entity.too.large') return rpcError(res, 413, -32600, `request over ${MAX_MCP_BODY_BYTES} bytes, not read`);
		if (type === 'entity.parse.failed') return rpcError(res, 400, -32700, 'parse error: the body is not JSON');
		const status = (error as {status?: unknown}).status;
		if (typeof status === 'number' && status >= 400 && status < 500) return rpcError(res, status, -32600, 'bad request');
		options.log(`internal error: ${(error as Error).message ?? String(error)}`);
		rpcError(res, 500, -32603, 'internal error');
	});
	return app;
}
