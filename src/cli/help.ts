/**
 * One command's help: what `controlroom COMMAND --help` prints and docs/cli.md shows, from the same
 * data (a test keeps the page in step). Every command lists its exit codes and at least one example.
 */
export type CommandHelp = {
	/** The command lines it takes, each without the leading `controlroom`. */
	readonly synopsis: readonly string[];
	/** What it does: a few lines, already wrapped. */
	readonly description: string;
	/** Its own flags, `[flag, meaning]`; `--ledger` and `--help` are added to every command. */
	readonly options: readonly (readonly [flag: string, meaning: string])[];
	/** `[code, when]`, in the words of docs/cli.md's exit code table. */
	readonly exits: readonly (readonly [code: string, when: string])[];
	/** `[command line, what it does]`; the command line starts with `controlroom`. */
	readonly examples: readonly (readonly [command: string, what: string])[];
	/** Leave out the common `--ledger PATH` (a command that picks its own ledger). */
	readonly hasNoLedger?: boolean;
};

/** The `--ledger PATH` line every command but the demo takes. */
export const LEDGER_OPTION = [
	'--ledger PATH',
	'the ledger file (default $CONTROLROOM_HOME/ledger.db); its folder must exist',
] as const;
const HELP_OPTION = ['-h, --help', 'print this help'] as const;

/** Help lines are at most this wide, so they read in a 100-column terminal without wrapping. */
export const HELP_COLUMNS = 100;

/** Word-wraps text to `width` columns, keeping its own line breaks. */
function wrap(text: string, width: number): string[] {
	return text.split('\n').flatMap(paragraph => {
		const lines: string[] = [];
		let line = '';
		for (const word of paragraph.split(' ')) {
			if (line !== '' && line.length + 1 + word.length > width) {
				lines.push(line);
				line = word;
			} else line = line === '' ? word : `${line} ${word}`;
		}
		return [...lines, line];
	});
}

function table(rows: readonly (readonly [string, string])[], indent: string): string[] {
	const width = Math.min(24, Math.max(...rows.map(([left]) => left.length)));
	return rows.flatMap(([left, right]) => {
		const [first = '', ...rest] = wrap(right, HELP_COLUMNS - indent.length - width - 2);
		const head =
			left.length > width
				? [`${indent}${left}`, `${indent}${' '.repeat(width + 2)}${first}`]
				: [`${indent}${left.padEnd(width)}  ${first}`];
		return [...head, ...rest.map(line => `${indent}${' '.repeat(width + 2)}${line}`)];
	});
}

/** The options a command's help lists: its own, then `--ledger` (unless it has none) and `--help`. */
export function optionsOf(help: CommandHelp): readonly (readonly [string, string])[] {
	return [...help.options, ...(help.hasNoLedger ? [] : [LEDGER_OPTION]), HELP_OPTION];
}

/** The text `controlroom COMMAND --help` prints. */
export function renderHelp(help: CommandHelp): string {
	const [first, ...others] = help.synopsis;
	return [
		`usage: controlroom ${first ?? ''}`,
		...others.map(line => `       controlroom ${line}`),
		'',
		help.description,
		'',
		'options:',
		...table(optionsOf(help), '  '),
		'',
		'exit codes:',
		...table(help.exits, '  '),
		'',
		'examples:',
		...help.examples.flatMap(([command, what]) => [`  ${command}`, `      ${what}`]),
	].join('\n');
}

/** The exit codes every command draws from, in one place (docs/cli.md); each command's help lists its own. */
export const EXIT_CODES: readonly (readonly [code: string, meaning: string])[] = [
	['0', 'done; for checks (snapshot --fail-on, contract check): nothing to report'],
	[
		'1',
		'the command ran and the answer is no, or it could not do it: a refusal (an invalid contract, a claim held by someone else, incomplete evidence), a --fail-on lane with tasks, a task that could not be stopped, an ingest where nothing landed, a ledger that cannot be opened or written',
	],
	['2', 'review: the review needs a person (fixes left after the fix round, INVALID, STOPPED); docs/review.md'],
	[
		'3',
		'reconcile: the ledger file was moved, deleted or replaced while it ran; it said so on stderr and went on with the file at its path',
	],
	[
		'64',
		'the command line is wrong (EX_USAGE): an unknown command or option, a missing or bad value, a --ledger that is empty, a folder, in a folder that does not exist, or (for commands that need one) where no ledger is; nothing was written',
	],
	['69', 'sync --once: the fleet server cannot be reached; serve, otel receive: the port is taken (EX_UNAVAILABLE)'],
	[
		'75',
		'try again later (EX_TEMPFAIL): run --no-wait, every admission slot is held; sync, another sync of this host holds its lock; stop on a fleet ledger, the host has not answered yet',
	],
	[
		'77',
		'refused because an agent asked (EX_NOPERM): effects approve and reject, accept, ack, send-back, review, decide, contract ready, serve approve and serve tokens new say yes only for a person at a terminal; the attempt is recorded and shown in Needs you (docs/security.md)',
	],
	[
		'78',
		'the configuration is wrong (EX_CONFIG): the config file (not JSON, an unknown key, a bad value, not a regular file) or a CONTROLROOM_* variable with a bad value; the line names the file or variable and the field; nothing was done (docs/config.md)',
	],
	['122', 'run --on-deny stop: a person denied a held tool call, and the task was stopped (docs/headless-holds.md)'],
	['125', 'run: the task went over its token budget and was stopped'],
	['127', 'run: the command could not be started, or its --log could not be opened; the task is recorded failed'],
	[
		'128+N',
		'run: the task was stopped by signal N; the board, the demo, reconcile, sync, serve and pickup: ended by signal N (Ctrl-C gives 130, SIGTERM 143; src/cli/signals.ts)',
	],
	['other', "run: the child's own exit code"],
];

/** One command for the reference page: its name, its one-line summary and its help. */
export type ReferenceEntry = {readonly name: string; readonly summary: string; readonly help: CommandHelp};

/** docs/cli.md: the exit codes, then every command's help exactly as `--help` prints it. */
export function renderReference(overviewText: string, entries: readonly ReferenceEntry[]): string {
	return [
		'# Command line reference',
		'',
		"Generated from the commands' own help by `npm run docs:cli` (which runs",
		'`controlroom help --markdown`); `controlroom COMMAND --help` prints the same text, and a test',
		'keeps this page in step with it.',
		'',
		'```text',
		overviewText,
		'```',
		'',
		'## Exit codes',
		'',
		'Every command draws its exit codes from this table; its own help says which it uses and when.',
		'Errors are one line on stderr, `controlroom: ...`, naming the problem and the path where there is',
		'one; never a stack trace (set `CONTROLROOM_DEBUG=1` to see one).',
		'',
		'| code | meaning |',
		'|---|---|',
		...EXIT_CODES.map(([code, meaning]) => `| ${code} | ${meaning} |`),
		'',
		...entries.flatMap(entry => [
			`## \`controlroom ${entry.name}\``,
			'',
			entry.summary.charAt(0).toUpperCase() + entry.summary.slice(1) + '.',
			'',
			'```text',
			renderHelp(entry.help),
			'```',
			'',
		]),
	].join('\n');
}
