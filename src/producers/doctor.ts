import {existsSync, lstatSync, readdirSync, statfsSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {OTEL_REFUSED_COUNTER} from '../ledger/counters.ts';
import {droppedEvents} from '../ledger/drop-markers.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {controlroomHome, spoolDir} from '../ledger/paths.ts';
import {REJECTED_DIR, spoolBacklog, spoolWritability} from '../ledger/spool.ts';
import {CLAUDE_EVENTS, CODEX_EVENTS, installedCommands, installTargets} from './agent-hook/hooks-install.ts';

/** One finding: `ok`, a `problem` a person should look at, or plain `info`. */
export type Check = {readonly name: string; readonly state: 'ok' | 'problem' | 'info'; readonly detail: string};

/** A spool file older than this means nothing is folding it (the board, the reconciler and reading commands do). */
const STALE_BACKLOG_MS = 10 * 60 * 1000;

/** Folders controlroom keeps beside the ledger, checked whole (every file and folder in them). */
const BESIDE_THE_LEDGER = ['spool', 'reviews', 'plan-reviews'];
/** Folders controlroom keeps in its home, checked whole. */
const IN_THE_HOME = ['locks', 'output'];
/** At most this many files and folders are named; the count says how many in all. */
const NAMED_MODE_PROBLEMS = 5;
/** A walk stops after this many entries: a folder this large is a problem of its own (a backlog). */
const MAX_WALKED = 20_000;

function modeProblem(path: string): string | null {
	try {
		// The name's own entry: a link is reported as what it is, never followed.
		const stat = lstatSync(path);
		if (stat.isSymbolicLink()) return `${path} is a symbolic link (controlroom makes none there)`;
		const mode = stat.mode & 0o777;
		return (mode & 0o077) === 0
			? null
			: `${path} is ${mode.toString(8).padStart(4, '0')} (others can ${stat.isDirectory() ? 'list' : 'read'} it)`;
	} catch {
		return null;
	}
}

/** `path` and, when it is a real folder, everything under it (depth first, at most MAX_WALKED). */
function walk(path: string, into: string[]): void {
	if (into.length >= MAX_WALKED) return;
	into.push(path);
	let entries;
	try {
		if (!lstatSync(path).isDirectory()) return;
		entries = readdirSync(path);
	} catch {
		return;
	}
	for (const name of entries) walk(join(path, name), into);
}

/**
 * Every folder 0700 and every file 0600, whoever made it first (docs/ledger.md, "Privacy"): the
 * ledger's folder and its files, and everything in the folders controlroom keeps beside it and in
 * its home. A `--ledger` in a folder of the user's own is checked for the ledger's files only,
 * never walked.
 */
function permissions(ledgerFile: string, home: string): Check {
	const paths = [dirname(ledgerFile), ledgerFile, `${ledgerFile}-wal`, `${ledgerFile}-shm`, `${ledgerFile}.lock`];
	for (const name of BESIDE_THE_LEDGER) walk(join(dirname(ledgerFile), name), paths);
	if (home !== dirname(ledgerFile)) paths.push(home);
	for (const name of IN_THE_HOME) walk(join(home, name), paths);
	const problems = [...new Set(paths)].flatMap(path => modeProblem(path) ?? []);
	if (problems.length === 0)
		return {
			name: 'permissions',
			state: 'ok',
			detail: `the ledger, its folder and the ${paths.length - 1} files and folders controlroom keeps are the owner’s only`,
		};
	const more = problems.length > NAMED_MODE_PROBLEMS ? `; and ${problems.length - NAMED_MODE_PROBLEMS} more` : '';
	return {
		name: 'permissions',
		state: 'problem',
		detail: `${problems.slice(0, NAMED_MODE_PROBLEMS).join('; ')}${more} (chmod -R go-rwx fixes them)`,
	};
}

/**
 * Free space where the ledger and the spool are: on a full disk the hooks can only leave drop
 * markers. A problem below MIN_FREE_BYTES.
 */
function diskSpace(ledgerFile: string): Check | null {
	let free;
	try {
		const stats = statfsSync(dirname(ledgerFile));
		free = stats.bavail * stats.bsize;
	} catch {
		return null;
	}
	return free >= MIN_FREE_BYTES
		? {name: 'disk', state: 'ok', detail: `${Math.floor(free / (1024 * 1024))} MiB free for the ledger and the spool`}
		: {
				name: 'disk',
				state: 'problem',
				detail: `${Math.floor(free / 1024)} KiB free on the file system of ${dirname(ledgerFile)}: the hooks drop events until there is room`,
			};
}

/** Below this much free space the ledger may not take a transaction, nor the spool a payload. */
const MIN_FREE_BYTES = 16 * 1024 * 1024;

function integrity(ledger: Ledger | {readonly openProblem: string}): Check {
	if ('openProblem' in ledger) return {name: 'integrity', state: 'problem', detail: ledger.openProblem};
	const problems = ledger.quickCheck();
	return problems.length === 0
		? {name: 'integrity', state: 'ok', detail: `PRAGMA quick_check: ok (${ledger.path})`}
		: {name: 'integrity', state: 'problem', detail: `PRAGMA quick_check: ${problems.slice(0, 3).join('; ')}`};
}

function backlog(dir: string, now: number): Check[] {
	let found;
	try {
		found = spoolBacklog(dir, now);
	} catch (error) {
		return [
			{name: 'spool', state: 'problem', detail: `${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`},
		];
	}
	const checks: Check[] = [];
	const age = found.oldestAt === null ? 0 : now - found.oldestAt;
	checks.push(
		found.files === 0
			? {name: 'spool', state: 'ok', detail: `${dir}: nothing waiting`}
			: {
					name: 'spool',
					state: age > STALE_BACKLOG_MS ? 'problem' : 'info',
					detail: `${dir}: ${found.files} file(s) waiting, the oldest ${Math.round(age / 1000)} s old${age > STALE_BACKLOG_MS ? ': nothing is folding them (run controlroom reconcile, or open the board)' : ''}`,
				},
	);
	if (found.staleTemporary > 0) {
		checks.push({
			name: 'spool temporary files',
			state: 'problem',
			detail: `${found.staleTemporary} unfinished temporary file(s): hooks killed while writing; those events are lost`,
		});
	}
	const writable = spoolWritability(dir);
	checks.push(
		writable.isWritable
			? {name: 'spool writable', state: 'ok', detail: 'the hook can write there'}
			: {name: 'spool writable', state: 'problem', detail: `the hook cannot write: ${writable.reason}`},
	);
	return checks;
}

function rejected(dir: string): Check {
	const folder = join(dir, REJECTED_DIR);
	const files = existsSync(folder) ? readdirSync(folder).filter(name => !name.endsWith('.reason')) : [];
	return files.length === 0
		? {name: 'rejected spool files', state: 'ok', detail: 'none'}
		: {
				name: 'rejected spool files',
				state: 'problem',
				detail: `${files.length} set aside in ${folder} (each with a .reason beside it)`,
			};
}

function dropped(ledger: Ledger | null, dir: string): Check {
	const {counted, waiting} = droppedEvents(ledger, dir);
	return counted + waiting === 0
		? {name: 'dropped hook events', state: 'ok', detail: 'none'}
		: {
				name: 'dropped hook events',
				state: 'problem',
				detail: `${counted + waiting} hook event(s) could be written to neither the ledger nor the spool (a full disk?): ${describeDropped(counted, waiting)}`,
			};
}

/** Requests the telemetry receiver refused (no key, or another ledger's): each one someone not invited sending. */
function telemetryRefused(ledger: Ledger | null): Check {
	const refused = ledger === null ? 0 : ledger.reader.counter(OTEL_REFUSED_COUNTER);
	return refused === 0
		? {name: 'telemetry refused', state: 'ok', detail: 'none'}
		: {
				name: 'telemetry refused',
				state: 'problem',
				detail: `${refused} request(s) to the telemetry receiver came without this ledger's telemetry key and were refused (401), nothing recorded: something controlroom did not point there is sending (docs/otel.md)`,
			};
}

/** Where the drops are counted: in the ledger, and as markers the next fold counts. */
export function describeDropped(counted: number, waiting: number): string {
	return `${counted} counted in the ledger, ${waiting} drop marker${waiting === 1 ? '' : 's'} waiting in the spool for a fold`;
}

function hooks(env: NodeJS.ProcessEnv): Check[] {
	const targets = installTargets({env});
	const describe = (name: string, file: string, expected: readonly string[]): Check => {
		const events = installedCommands(file).map(entry => entry.event);
		if (events.length === 0) return {name, state: 'info', detail: `${file}: not installed (controlroom hooks install)`};
		const missing = expected.filter(event => !events.includes(event));
		return missing.length === 0
			? {name, state: 'ok', detail: `${file}: installed for ${events.length} events`}
			: {name, state: 'problem', detail: `${file}: missing ${missing.join(', ')} (run controlroom hooks install again)`};
	};
	return [
		describe('hooks: claude', targets.claudeSettings, CLAUDE_EVENTS),
		describe('hooks: codex', join(targets.codexHome, 'hooks.json'), CODEX_EVENTS),
	];
}

/** The ledger doctor looks at: open, or only its path and why it could not be opened (a full disk, damage). */
export type Examined = Ledger | {readonly path: string; readonly openProblem: string};

/**
 * `controlroom doctor`: the ledger's integrity, free space, the spool's backlog, rejected and
 * dropped events, the permissions of what controlroom keeps, and whether the hooks are installed.
 * A ledger that cannot be opened is one problem; everything that needs no ledger is still checked.
 */
export function diagnose(ledger: Examined, env: NodeJS.ProcessEnv = process.env, now = Date.now()): Check[] {
	const dir = spoolDir(ledger.path);
	const open = 'openProblem' in ledger ? null : ledger;
	return [
		integrity(ledger),
		...[diskSpace(ledger.path)].filter((check): check is Check => check !== null),
		permissions(ledger.path, controlroomHome(env)),
		...backlog(dir, now),
		rejected(dir),
		dropped(open, dir),
		telemetryRefused(open),
		...hooks(env),
	];
}
