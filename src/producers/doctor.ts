import {existsSync, readdirSync, statSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {DROPPED_COUNTER} from '../ledger/counters.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {spoolDir} from '../ledger/paths.ts';
import {REJECTED_DIR, spoolBacklog, spoolWritability} from '../ledger/spool.ts';
import {CLAUDE_EVENTS, CODEX_EVENTS, installedCommands, installTargets} from './agent-hook/hooks-install.ts';

/** One finding: `ok`, a `problem` a person should look at, or plain `info`. */
export type Check = {readonly name: string; readonly state: 'ok' | 'problem' | 'info'; readonly detail: string};

/** A spool file older than this means nothing is folding it (the board, the reconciler and reading commands do). */
const STALE_BACKLOG_MS = 10 * 60 * 1000;

function modeProblem(path: string, isDir: boolean): string | null {
	try {
		const mode = statSync(path).mode & 0o777;
		return (mode & 0o077) === 0
			? null
			: `${path} is ${mode.toString(8).padStart(4, '0')} (others can ${isDir ? 'list' : 'read'} it)`;
	} catch {
		return null;
	}
}

function permissions(ledgerFile: string): Check {
	const paths: [string, boolean][] = [
		[dirname(ledgerFile), true],
		[ledgerFile, false],
		[`${ledgerFile}-wal`, false],
		[`${ledgerFile}-shm`, false],
		[spoolDir(ledgerFile), true],
	];
	const problems = paths.flatMap(([path, isDir]) => modeProblem(path, isDir) ?? []);
	return problems.length === 0
		? {name: 'permissions', state: 'ok', detail: 'the ledger, its folder and the spool are the owner’s only'}
		: {name: 'permissions', state: 'problem', detail: problems.join('; ')};
}

function integrity(ledger: Ledger): Check {
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

function dropped(ledger: Ledger): Check {
	const count = ledger.reader.counter(DROPPED_COUNTER);
	return count === 0
		? {name: 'dropped hook events', state: 'ok', detail: 'none'}
		: {
				name: 'dropped hook events',
				state: 'problem',
				detail: `${count} hook event(s) could be written to neither the ledger nor the spool (a full disk?)`,
			};
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

/**
 * `controlroom doctor`: the ledger's integrity, the spool's backlog, rejected and dropped events,
 * the permissions of what controlroom keeps, and whether the hooks are installed.
 */
export function diagnose(ledger: Ledger, env: NodeJS.ProcessEnv = process.env, now = Date.now()): Check[] {
	const dir = spoolDir(ledger.path);
	return [integrity(ledger), permissions(ledger.path), ...backlog(dir, now), rejected(dir), dropped(ledger), ...hooks(env)];
}
