import {execFileSync} from 'node:child_process';
import {EventEmitter} from 'node:events';
import {createServer} from 'node:net';
import {fileURLToPath} from 'node:url';
import pg from 'pg';
import {scratchDir} from './cli.ts';
import {waitFor, type WaitOptions, type Wakeup} from './wait-for.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('../fixtures/pg/pg-server.sh', import.meta.url));

/** A PostgreSQL server of the test's own (its own data folder and port), which it may stop and start. */
export type PgServer = {readonly url: string; readonly dir: string; stop(): void; start(): void};

/** A port nothing listens on now, on loopback. */
export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
		});
	});
}

/**
 * Starts a throw-away server (test/fixtures/pg/pg-server.sh: initdb as the postgres user when run
 * as root, loopback only). Fails, never skips, when PostgreSQL is not installed: .ci/run installs it.
 */
export async function startPgServer(): Promise<PgServer> {
	const dir = scratchDir('cr-pg-');
	const port = await freePort();
	const run = (...args: string[]): string => execFileSync('bash', [SERVER_SCRIPT, ...args], {encoding: 'utf8'}).trim();
	const url = run('start', dir, String(port));
	return {url, dir, stop: () => void run('stop', dir), start: () => void run('start', dir, String(port))};
}

let shared: Promise<PgServer> | undefined;

/**
 * The server the fleet tests share: CONTROLROOM_TEST_PG (which .ci/run starts and exports), else
 * one started for this test file (stopped by stopOwnPgServer in the file's afterAll: a test
 * worker may end without an 'exit' event). Each test makes its own database on it (freshDatabase).
 */
export async function sharedPgUrl(): Promise<string> {
	const fromCi = process.env['CONTROLROOM_TEST_PG'];
	if (fromCi) return fromCi;
	shared ??= startPgServer();
	return (await shared).url;
}

/** Stops the server sharedPgUrl started for this test file, if it started one. */
export async function stopOwnPgServer(): Promise<void> {
	const started = shared;
	shared = undefined;
	if (started) (await started).stop();
}

let databases = 0;

/** A new, empty database on `serverUrl` (the shared server unless given); returns its URL. */
export async function freshDatabase(serverUrl?: string): Promise<string> {
	const base = serverUrl ?? (await sharedPgUrl());
	databases += 1;
	const name = `cr_${process.pid}_${Date.now().toString(36)}_${databases}`;
	await query(base, `CREATE DATABASE ${name}`);
	const url = new URL(base);
	url.pathname = `/${name}`;
	return url.toString();
}

/** Runs one statement on its own connection. */
export async function query<T extends pg.QueryResultRow = pg.QueryResultRow>(
	url: string,
	sql: string,
	params: unknown[] = [],
): Promise<T[]> {
	const client = new pg.Client({connectionString: url});
	// A server stopped by the test ends this connection with an error event; the query reports it.
	client.on('error', () => undefined);
	await client.connect();
	try {
		return (await client.query<T>(sql, params)).rows;
	} finally {
		await client.end();
	}
}

/** An open connection a test holds (a lock, a LISTEN), closed by the test. */
export async function connection(url: string): Promise<pg.Client> {
	const client = new pg.Client({connectionString: url});
	client.on('error', () => undefined);
	await client.connect();
	return client;
}

/** Fires on every NOTIFY the fleet ledger at `url` sends (a host shipped events, a request was made). */
export async function onFleetNotice(url: string): Promise<{wakeup: Wakeup; close: () => Promise<void>}> {
	const client = await connection(url);
	await client.query('LISTEN controlroom_fleet');
	return {
		wakeup: look => {
			client.on('notification', look);
			return () => client.removeListener('notification', look);
		},
		close: () => client.end().catch(() => undefined),
	};
}

/** Fires every `ms`: for server state nothing announces (a backend waiting on a lock). */
export function every(ms: number): Wakeup {
	return look => {
		const timer = setInterval(look, ms);
		return () => clearInterval(timer);
	};
}

/**
 * waitFor for an asynchronous condition (a query): each wakeup starts one query (never two at
 * once), and each answer is looked at; resolves with the first answer that is neither undefined,
 * null nor false.
 */
export async function waitForQuery<T>(
	ask: () => Promise<T | undefined | null | false>,
	options: WaitOptions & {readonly on: readonly Wakeup[]},
): Promise<T> {
	const answered = new EventEmitter();
	let latest: T | undefined | null | false;
	let failure: unknown;
	let isAsking = false;
	let isAgain = false;
	const askNow = (): void => {
		if (isAsking) {
			isAgain = true;
			return;
		}
		isAsking = true;
		ask()
			.then(
				value => (latest = value),
				error => (failure = error),
			)
			.finally(() => {
				isAsking = false;
				answered.emit('answer');
				if (isAgain) {
					isAgain = false;
					askNow();
				}
			});
	};
	const asking: Wakeup = look => {
		const stops = options.on.map(wakeup => wakeup(askNow));
		answered.on('answer', look);
		askNow();
		return () => {
			for (const stop of stops) stop();
			answered.removeListener('answer', look);
		};
	};
	return waitFor(
		() => {
			if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
			return latest;
		},
		{...options, on: [asking]},
	);
}
