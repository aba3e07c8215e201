// The driver is loaded at the first connection: commands that only ask `isFleetUrl` (the board,
// snapshot, stop on a local ledger) must not pay for loading it.
import type pg from 'pg';
import {loadWithGlobalsHidden} from '../../core/hidden-globals.ts';
import {FleetError} from './fleet-error.ts';
import {fleetPassword} from './pgpass.ts';

/** Whether a `--ledger` or `--to` value names a PostgreSQL fleet ledger rather than a SQLite file. */
export function isFleetUrl(value: string | undefined): value is string {
	return value !== undefined && /^postgres(ql)?:\/\//i.test(value);
}

/** The URL without its password (or any query string), for messages: a secret is never printed. */
export function redactUrl(url: string): string {
	try {
		const parsed = new URL(url);
		parsed.password = '';
		parsed.search = '';
		return parsed.toString().replace(/\/$/, '');
	} catch {
		return 'the PostgreSQL URL (unparsable)';
	}
}

export {FleetError} from './fleet-error.ts';

const NETWORK_CODES: Readonly<Record<string, string>> = {
	ECONNREFUSED: 'connection refused',
	ECONNRESET: 'connection reset',
	ETIMEDOUT: 'timed out',
	EHOSTUNREACH: 'host unreachable',
	ENOTFOUND: 'host not found',
	EPIPE: 'connection closed',
};

/** Whether an error means the server could not be reached or went away (worth retrying later). */
export function isUnreachable(error: unknown): boolean {
	const code = (error as {code?: unknown}).code;
	if (typeof code === 'string' && (code in NETWORK_CODES || code === '57P01' || code === '57P03' || code === '08006'))
		return true;
	const message = error instanceof Error ? error.message : String(error);
	return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(message);
}

/** One line for a PostgreSQL error: what failed and where, the password left out. */
export function describeFleetError(error: unknown, url: string): string {
	if (error instanceof FleetError) return error.message;
	const code = (error as {code?: unknown}).code;
	const where = redactUrl(url);
	if (typeof code === 'string' && code in NETWORK_CODES) return `cannot reach PostgreSQL at ${where} (${NETWORK_CODES[code]})`;
	const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
	if (isUnreachable(error)) return `lost the connection to PostgreSQL at ${where} (${message})`;
	return `PostgreSQL at ${where}: ${message}${typeof code === 'string' ? ` (${code})` : ''}`;
}

/** 64-bit integers and numerics come back as numbers: sequences and times stay far below 2^53. */
function numericTypes(driver: typeof pg): {getTypeParser: typeof pg.types.getTypeParser} {
	return {
		getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
			oid === 20 ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
	};
}

/** How long a connection attempt may take before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/** Opens one connection to the fleet's server; `role` names it in pg_stat_activity (and in lock messages). */
export async function connectFleet(url: string, role: string): Promise<pg.Client> {
	// pg builds a `Response` while loading to ask whether it runs on Cloudflare; on Node 20 that loads undici.
	const {default: driver} = await loadWithGlobalsHidden(['Response'], () => import('pg'));
	// Why no password could be given, when the server asked for one: the driver, told nothing, fails
	// with its own words (`client password must be a string`), so ours are kept and said instead.
	let passwordProblem: string | null = null;
	const client: pg.Client = new driver.Client({
		connectionString: url,
		application_name: `controlroom ${role} (pid ${process.pid})`.slice(0, 63),
		connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
		keepAlive: true,
		types: numericTypes(driver),
		// Every fleet query is short and indexed: JIT compiling one costs more than running it
		// (200 ms of a ten-host snapshot's need query went to compiling it; docs/fleet.md).
		options: '-c jit=off',
	});
	// Asked only when the server wants one: PGPASSWORD or the password file, never the URL (docs/fleet.md).
	// Set on the client itself: given with connectionString, the driver's parse of the URL drops it.
	const password = async (): Promise<string | undefined> => {
		try {
			return fleetPassword({
				host: client.host,
				port: client.port,
				user: client.user ?? '',
				database: client.database ?? client.user ?? '',
			});
		} catch (error) {
			if (!(error instanceof FleetError)) throw error;
			passwordProblem = error.message;
			// Undefined tells the driver there is none.
			return undefined;
		}
	};
	(client as unknown as {password: typeof password}).password = password;
	// A server that goes away emits 'error' on an idle client; the next query reports it instead.
	client.on('error', () => undefined);
	try {
		await client.connect();
	} catch (error) {
		await client.end().catch(() => undefined);
		throw passwordProblem === null ? error : new FleetError(passwordProblem);
	}
	return client;
}

export type FleetClient = pg.Client;
