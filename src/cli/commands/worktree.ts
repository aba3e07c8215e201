import {existsSync} from 'node:fs';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {changeSize} from '../../core/timeline.ts';
import type {Task, TaskWorktree} from '../../core/task.ts';
import {requirePerson} from '../../gates/person-gate.ts';
import {measureWorktree} from '../../producers/worktree-change.ts';
import {isEnded} from '../../core/status.ts';
import {checkRunWorktree, removeRunWorktree, worktreeHold, WorktreeError, type WorktreeHold} from '../../producers/worktree.ts';
import {parseCommandArgs, taskArgument} from '../args.ts';
import {openCommandLedger, out, resolveForCommand} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

/** `worktree remove` refused: the worktree holds work it would lose. */
const HOLDS_WORK_EXIT = 1;
/** `worktree remove` refused: the task's run is live (EX_TEMPFAIL: once it ends, it may be removed). */
const LIVE_EXIT = 75;
/** `worktree remove` refused: the recorded path is not a run worktree, or git could not remove it. */
const REFUSED_EXIT = 1;

export const help: CommandHelp = {
	synopsis: ['worktree list [--json]', 'worktree remove TASK [--force]'],
	description: `The git worktrees of runs given --worktree (docs/wrapper.md, "A worktree per run"). list: each
task's branch, status, its change now against where the branch started (files, +/-) and its path
(gone: removed). remove: removes the task's worktree, and its branch when that is merged into the
branch it came from; it refuses while the task's run is live, or while the worktree has
uncommitted work or commits not merged into that branch, saying which, unless --force (a person's
word only: an agent is refused, exit 77). Forced or not, it removes nothing but a worktree git
lists under <repository>/.controlroom/worktrees.`,
	options: [
		['--json', 'list: the worktrees as JSON, one object per task'],
		['--force', 'remove: remove the worktree and its branch whatever they hold (a person only)'],
	],
	exits: [
		['0', 'listed, or removed'],
		[
			'1',
			'remove refused, nothing removed (the line says why): the worktree has uncommitted work or unmerged commits; or, forced or not, the recorded path is not a run worktree (outside .controlroom/worktrees, a symlink on the way, not listed by git); or git could not remove it',
		],
		['64', 'bad command line, no such task, or the task has no worktree'],
		['75', 'remove: the task is still registered or running (its run uses the worktree); nothing removed'],
		['77', '--force asked by an agent, not a person (recorded; the board shows it)'],
	],
	examples: [
		['controlroom worktree list', 'every run worktree, its branch and change'],
		['controlroom worktree remove w-4c66', 'removes the worktree once its work is merged'],
	],
};

type Listed = {readonly task: Task; readonly worktree: TaskWorktree};

function listed(tasks: readonly Task[]): Listed[] {
	return tasks.flatMap(task => (task.worktree ? [{task, worktree: task.worktree}] : []));
}

/** The change now (git, at the time asked), or `gone` when the worktree was removed. */
function changeNow(worktree: TaskWorktree): string {
	if (!existsSync(worktree.path)) return 'gone';
	const change = worktree.base ? measureWorktree(worktree.path, worktree.base) : null;
	return change ? changeSize(change.files, change.added, change.removed) : 'unknown';
}

function list(json: boolean, ledgerFlag: string | undefined): number {
	const ledger = openCommandLedger(ledgerFlag, {mode: 'read'});
	try {
		const rows = listed(ledger.reader.tasksForView(null));
		if (json) {
			out(
				terminalSafeJson(
					rows.map(({task, worktree}) => ({task: task.id, status: task.status, ...worktree, now: changeNow(worktree)})),
				),
			);
			return 0;
		}
		if (rows.length === 0) {
			out('no run worktrees (controlroom run --worktree makes one)');
			return 0;
		}
		for (const {task, worktree} of rows)
			out(terminalSafe(`${task.id}  ${worktree.branch}  ${task.status}  ${changeNow(worktree)}  ${worktree.path}`));
		return 0;
	} finally {
		ledger.close();
	}
}

function plural(count: number, word: string): string {
	return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Why a remove without --force is refused, or null: a live run first, then the work it would lose. */
function refusal(task: Task, worktree: TaskWorktree, hold: WorktreeHold): {line: string; exit: number} | null {
	if (!isEnded(task.status))
		return {
			line: `task ${task.id} is ${task.status}: its run still uses ${worktree.path}; nothing removed (stop it first, or --force)`,
			exit: LIVE_EXIT,
		};
	const what = [
		hold.uncommitted > 0 ? plural(hold.uncommitted, 'uncommitted file') : null,
		hold.unmerged === null
			? `commits git could not compare with ${hold.into}`
			: hold.unmerged > 0
				? `${plural(hold.unmerged, 'commit')} not merged into ${hold.into}`
				: null,
	].filter(Boolean);
	if (what.length === 0) return null;
	return {line: `${worktree.path} has ${what.join(' and ')}; nothing removed (--force removes it anyway)`, exit: HOLDS_WORK_EXIT};
}

function remove(ref: string, isForced: boolean, ledgerFlag: string | undefined): number {
	const ledger = openCommandLedger(ledgerFlag, {mode: 'existing'});
	try {
		const task = resolveForCommand('worktree remove', ledger, ref);
		if (!task) throw new CliError(`worktree remove: no task ${terminalSafe(ref)}`, USAGE_EXIT);
		const worktree = task.worktree;
		if (!worktree || worktree.repository === null)
			throw new CliError(`worktree remove: task ${task.id} has no worktree (it was not run with --worktree)`, USAGE_EXIT);
		// Losing work is a person's decision: --force passes the actor rule first (docs/security.md).
		if (isForced) requirePerson(ledger, {verb: 'worktree remove --force', target: task.id, source: 'cli'});
		// Nothing outside <repository>/.controlroom/worktrees is touched, forced or not.
		checkRunWorktree(worktree.repository, worktree);
		const hold = worktreeHold(worktree.repository, {...worktree, from: worktree.from ?? null});
		const refused = isForced ? null : refusal(task, worktree, hold);
		if (refused) throw new CliError(`worktree remove: ${refused.line}`, refused.exit);
		const removed = removeRunWorktree(worktree.repository, worktree, {isForced, isBranchDone: isForced || hold.unmerged === 0});
		out(
			terminalSafe(
				`removed ${worktree.path}${removed.isBranchKept ? `; branch ${worktree.branch} kept (not merged)` : ` and branch ${worktree.branch}`}`,
			),
		);
		return 0;
	} catch (error) {
		if (error instanceof WorktreeError) throw new CliError(`worktree remove: ${error.message}`, REFUSED_EXIT);
		throw error;
	} finally {
		ledger.close();
	}
}

/** `controlroom worktree list|remove`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	const {values, positionals} = parseCommandArgs('worktree', rest, {json: {type: 'boolean'}, force: {type: 'boolean'}});
	if (verb === 'list') {
		if (positionals.length > 0) throw new CliError('worktree list: takes no TASK', USAGE_EXIT);
		return Promise.resolve(list(values.json === true, values.ledger));
	}
	if (verb === 'remove')
		return Promise.resolve(remove(taskArgument('worktree remove', positionals), values.force === true, values.ledger));
	throw new CliError(`worktree: expected list or remove, got '${terminalSafe(verb ?? '')}'`, USAGE_EXIT);
}
