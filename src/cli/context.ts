import {accessSync, constants, statSync, type Stats} from 'node:fs';
import {userInfo} from 'node:os';
import {basename, dirname, join} from 'node:path';
import {adoptConfiguredPolicy} from '../gates/passkey/policy.ts';
import {LedgerFromFutureError} from '../ledger/migrations.ts';
import {LedgerWalHeldError, openLedger, type Ledger, type OpenOptions} from '../ledger/open-ledger.ts';
import {ledgerPath} from '../ledger/paths.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import type {Task} from '../core/task.ts';
import {loadConfig} from './config-file.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/**
 * How a command uses its ledger. `read`: only reads (snapshot, timeline, work, rejects); a ledger
 * it may not write is opened read-only. `existing`: writes to a ledger that must already be there
 * (stop, progress, hand-in, pass-back, the board, reconcile, take, mcp, the gateway). `create`:
 * owns a ledger, so it writes, creating the ledger file if its folder exists, and says so on
 * stderr when it made one at a `--ledger` path (run and ingest; the hook creates none). The
 * default ledger, in the controlroom home, is always created, home folder included.
 */
export type LedgerMode = 'read' | 'existing' | 'create';

/** The commands a read-only ledger can still serve, for the message that refuses the others. */
const READING_COMMANDS = 'snapshot, timeline, work, rejects';

function statOf(path: string): Stats | null {
	try {
		return statSync(path);
	} catch {
		return null;
	}
}

function isWritable(path: string): boolean {
	try {
		accessSync(path, constants.W_OK);
		return true;
	} catch {
		return false;
	}
}

/** One line for a ledger SQLite or the schema refused, naming the file. */
function describeOpenError(file: string, error: unknown): CliError {
	if (error instanceof LedgerFromFutureError) return new CliError(`${error.message} (${file})`);
	if (error instanceof LedgerWalHeldError) return new CliError(error.message);
	const code = (error as {code?: unknown}).code;
	if (code === 'SQLITE_NOTADB') return new CliError(`${file} is not a controlroom ledger (not an SQLite database)`);
	if (typeof code === 'string' && code.startsWith('SQLITE_'))
		return new CliError(`cannot open the ledger ${file}: ${(error as Error).message} (${code})`);
	const syscall = (error as {syscall?: unknown}).syscall;
	if (syscall === 'mkdir')
		return new CliError(`cannot create ${String((error as {path?: unknown}).path)} for the ledger: ${String(code)}`);
	if (typeof code === 'string') return new CliError(`cannot open the ledger ${file}: ${code}`);
	throw error;
}

/**
 * Opens the ledger a command names (`--ledger PATH`, else the default in the controlroom home),
 * refusing with one line what would otherwise fail deep in SQLite or, worse, silently create a
 * ledger nobody meant: an explicit path that is a folder, whose folder does not exist, or (for
 * commands that need one) where no ledger is.
 */
export function openCommandLedger(
	ledgerFlag: string | undefined,
	options: {mode: LedgerMode; busyTimeoutMs?: number; onMove?: OpenOptions['onMove']},
): Ledger {
	const file = ledgerPath(ledgerFlag);
	const isExplicit = ledgerFlag !== undefined;
	const flag = isExplicit ? '--ledger' : 'ledger';
	const stat = statOf(file);
	if (stat?.isDirectory())
		throw new CliError(`${flag}: ${file} is a folder; give the ledger file's path (e.g. ${join(file, 'ledger.db')})`, USAGE_EXIT);
	// SQLite would open a device or a FIFO and make its journal beside it (`/dev/null-journal`).
	if (stat !== null && !stat.isFile()) throw new CliError(`${flag}: ${file} is ${kindOf(stat)}, not a ledger file`, USAGE_EXIT);
	if (stat === null && isExplicit) {
		if (options.mode !== 'create') throw new CliError(`--ledger: no ledger at ${file}`, USAGE_EXIT);
		if (!statOf(dirname(file))?.isDirectory())
			throw new CliError(
				`--ledger: no folder ${dirname(file)} to hold ${basename(file)}; create it first or fix the path`,
				USAGE_EXIT,
			);
	}
	const isReadonly = stat !== null && !(isWritable(file) && isWritable(dirname(file)));
	if (isReadonly && options.mode !== 'read')
		throw new CliError(`ledger ${file} is read-only (it or its folder is not writable); ${READING_COMMANDS} can still read it`);
	let ledger: Ledger;
	try {
		ledger = openLedger(file, {
			isReadonly,
			...(options.busyTimeoutMs === undefined ? {} : {busyTimeoutMs: options.busyTimeoutMs}),
			...(options.onMove === undefined ? {} : {onMove: options.onMove}),
		});
	} catch (error) {
		throw describeOpenError(file, error);
	}
	// A typo in --ledger must not go unseen: the command says it made a new ledger (docs/cli.md).
	if (ledger.isNewFile && isExplicit) process.stderr.write(`controlroom: created a new, empty ledger at ${file}\n`);
	if (!isReadonly) adoptPolicyOfConfig(ledger);
	return ledger;
}

/**
 * `"approvals": "passkey"` in the config file is recorded in the ledger the first time a command
 * that writes opens it (docs/passkeys.md); from then on the ledger decides. A config file that
 * cannot be read is left to the command's own settings to report.
 */
function adoptPolicyOfConfig(ledger: Ledger): void {
	let configured: string | undefined;
	try {
		configured = loadConfig()?.values.approvals;
	} catch {
		return;
	}
	if (configured !== 'passkey') return;
	let user = 'unknown';
	try {
		user = userInfo().username;
	} catch {
		// No name for this uid (a container): the event still records the change.
	}
	adoptConfiguredPolicy(ledger, 'passkey', user);
}

/** What a path that is not a regular file is, in words. */
function kindOf(stat: Stats): string {
	if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
	if (stat.isFIFO()) return 'a FIFO';
	if (stat.isSocket()) return 'a socket';
	return 'not a regular file';
}

/** Finds the task TASK names; several matches are one line listing them, for `command`. */
export function resolveForCommand(command: string, ledger: Ledger, ref: string): Task | undefined {
	try {
		return ledger.reader.resolveTask(ref);
	} catch (error) {
		if (error instanceof AmbiguousTaskError) throw new CliError(`${command}: ${error.message}`, USAGE_EXIT);
		throw error;
	}
}

export {out, outJson, outText} from './output.ts';
