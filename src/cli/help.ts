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
	/** The values a placeholder takes (`LANE` of `--fail-on LANE`), which completion offers; TASK is the ledger's tasks. */
	readonly choices?: Readonly<Record<string, readonly string[]>>;
	/** Leave out the common `--ledger PATH` (a command that picks its own ledger). */
	readonly hasNoLedger?: boolean;
};

/** The `--ledger PATH` line every command but the demo takes. */
export const LEDGER_OPTION = [
	'--ledger PATH',
	'the ledger file (default $CONTROLROOM_HOME/ledger.db); its folder must exist',
] as const;
const HELP_OPTION = ['-h, --help', 'print this help'] as const;

/** Help lines are at most this wide, so every help reads whole in an 80-column terminal. */
export const HELP_COLUMNS = 80;

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

/**
 * A description as it is printed: its lines joined into paragraphs (a blank line separates two)
 * and wrapped again to the help's width, so a description written at any width fits.
 */
export function reflow(text: string, width = HELP_COLUMNS): string {
	return text
		.split(/\n\s*\n/)
		.map(paragraph => wrap(paragraph.replace(/\s*\n\s*/g, ' ').trim(), width).join('\n'))
		.join('\n\n');
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

/** Words of a command line, a quoted string kept whole (a break inside single quotes would change it). */
function shellWords(line: string): string[] {
	return line.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
}

/**
 * A command line wider than the help, broken between words with ` \` as a shell continues a line,
 * each next line indented further: still one command when copied into a shell.
 */
function commandLines(first: string, line: string, next: string): string[] {
	if (first.length + line.length <= HELP_COLUMNS) return [`${first}${line}`];
	const lines: string[] = [];
	let current = first;
	for (const word of shellWords(line)) {
		const isStart = current === first || current === next;
		if (!isStart && current.length + 1 + word.length + 2 > HELP_COLUMNS) {
			lines.push(`${current} \\`);
			current = `${next}${word}`;
		} else current = isStart ? `${current}${word}` : `${current} ${word}`;
	}
	return [...lines, current];
}

/** A synopsis's words, a bracketed group kept whole however nested: `[--user | --project DIR [--create]]` is one. */
function synopsisWords(line: string): string[] {
	const words: string[] = [];
	let depth = 0;
	for (const word of line.split(' ')) {
		if (depth > 0) words[words.length - 1] += ` ${word}`;
		else words.push(word);
		depth += (word.match(/\[/g) ?? []).length - (word.match(/\]/g) ?? []).length;
	}
	return words;
}

/** A synopsis line wider than the help, broken between words and indented under its command. */
function synopsisLines(lead: string, line: string): string[] {
	if (lead.length + line.length <= HELP_COLUMNS) return [`${lead}${line}`];
	const [name = ''] = line.split(' ');
	const hang = ' '.repeat(lead.length + name.length + 1);
	const lines: string[] = [];
	let current = lead;
	for (const word of synopsisWords(line)) {
		if (current.trim() !== '' && current !== hang && current.length + 1 + word.length > HELP_COLUMNS) {
			lines.push(current);
			current = `${hang}${word}`;
		} else current = current === lead || current === hang ? `${current}${word}` : `${current} ${word}`;
	}
	return [...lines, current];
}

/** The options a command's help lists: its own, then `--ledger` (unless it has none) and `--help`. */
export function optionsOf(help: CommandHelp): readonly (readonly [string, string])[] {
	return [...help.options, ...(help.hasNoLedger ? [] : [LEDGER_OPTION]), HELP_OPTION];
}

/** What every command taking TASK says of it, in one place (docs/cli.md, "Naming a task"). */
export const TASK_NOTE =
	"TASK is a task's id or the start of one, a session id, or a task's title or the start of one, in any case ('fix export'); several matches are one line naming each, exit 64.";

/** The text `controlroom COMMAND --help` prints: its usage, what it does, options, exit codes, and examples last. */
export function renderHelp(help: CommandHelp): string {
	const [first, ...others] = help.synopsis;
	const takesTask = help.synopsis.some(line => /\bTASK\b/.test(line));
	return [
		...synopsisLines('usage: controlroom ', first ?? ''),
		...others.flatMap(line => synopsisLines('       controlroom ', line)),
		'',
		reflow(takesTask ? `${help.description}\n\n${TASK_NOTE}` : help.description),
		'',
		'options:',
		...table(optionsOf(help), '  '),
		'',
		'exit codes:',
		...table(help.exits, '  '),
		'',
		'examples:',
		...help.examples.flatMap(([command, what]) => [
			...commandLines('  ', command, '        '),
			...wrap(what, HELP_COLUMNS - 6).map(line => `      ${line}`),
		]),
	].join('\n');
}

/** A group of commands in `controlroom --help`: what a person is doing, and the commands for it. */
export type HelpGroup = {readonly title: string; readonly commands: readonly string[]};

/**
 * `controlroom --help`'s groups, by what a person is doing; the five most used come first. Every
 * command is in exactly one group (a test checks it): a new command is added here, in its group.
 */
export const HELP_GROUPS: readonly HelpGroup[] = [
	{title: 'most used', commands: ['board', 'run', 'snapshot', 'timeline', 'stop']},
	{title: 'watch', commands: ['demo', 'explain', 'jump', 'status', 'stats', 'workers']},
	{title: 'audit', commands: ['verify', 'audit']},
	{title: 'run agents', commands: ['reconcile', 'gateway', 'order', 'worktree', 'reactions', 'ci']},
	{title: 'answer', commands: ['decide', 'send', 'effects', 'review', 'send-back', 'ack', 'need', 'mediate', 'plan', 'web']},
	{
		title: 'hand off',
		commands: [
			'contract',
			'handoff',
			'take',
			'progress',
			'hand-in',
			'pass-back',
			'looked',
			'accept',
			'work',
			'mcp',
			'serve',
			'pickup',
		],
	},
	{title: 'fleet', commands: ['sync', 'otel']},
	{title: 'set up', commands: ['hooks', 'doctor', 'config', 'completion', 'ingest', 'rejects']},
	{
		title: 'run by the agents, not by hand',
		commands: ['hook', 'hold-hook', 'permission-hook', 'collision-hook', 'handoff-hook', 'message-hook'],
	},
];

/** One group's lines: each command and its summary, the summary wrapped under itself. */
function groupLines(group: HelpGroup, summaries: Readonly<Record<string, string>>, width: number): string[] {
	return [
		`${group.title}:`,
		...group.commands.flatMap(name => {
			const [first = '', ...rest] = wrap(summaries[name] ?? '', HELP_COLUMNS - width - 4);
			return [`  ${name.padEnd(width)}  ${first}`, ...rest.map(line => `${' '.repeat(width + 4)}${line}`)];
		}),
	];
}

/** What `controlroom --help` prints: the commands by what a person is doing, the five most used first. */
export function renderOverview(summaries: Readonly<Record<string, string>>): string {
	const width = Math.max(...Object.keys(summaries).map(name => name.length));
	return [
		'usage: controlroom [COMMAND] [OPTIONS]',
		'       controlroom --version',
		'',
		...wrap(
			'A terminal control room for coding agents: who runs, who is stuck, who died, what it cost. Without a command it opens the board.',
			HELP_COLUMNS,
		),
		...HELP_GROUPS.flatMap(group => ['', ...groupLines(group, summaries, width)]),
		'',
		...wrap(
			"Every command takes --help: its options, exit codes and an example. Every command that reads or writes a ledger takes --ledger PATH (default $CONTROLROOM_HOME/ledger.db; not demo, contract, hooks, config). TASK is an id, an id's start, a session id or a title's start ('fix export'). Ctrl-C ends a command with 130. Exit codes: docs/cli.md. Defaults for some flags: ~/.config/controlroom/config.json (controlroom config). Shell completion: controlroom completion bash|zsh|fish. Something wrong? controlroom doctor; why a task shows what it shows: controlroom explain TASK.",
			HELP_COLUMNS,
		),
		'',
		'examples:',
		'  controlroom demo                     the board on simulated agents (q quits)',
		'  controlroom hooks install            every Claude Code, Codex session reports',
		'  controlroom run --title "fix export" -- codex exec "fix the export"',
		"  controlroom stop 'fix export'        stop that task, named by its title",
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
		'the command line is wrong (EX_USAGE): an unknown command or option, a missing or bad value, a --ledger that is empty, a folder, in a folder that does not exist, or (for commands that need one) where no ledger is, a file to write (or a --project) in a folder that does not exist (no command creates a folder it was given unless told to, as hooks install --create is), a TASK that names several tasks; nothing was written',
	],
	['66', 'verify --against: the anchors file it names does not exist (EX_NOINPUT); nothing was checked'],
	['69', 'sync --once: the fleet server cannot be reached; serve, otel receive: the port is taken (EX_UNAVAILABLE)'],
	[
		'75',
		"try again later (EX_TEMPFAIL): run --no-wait, every admission slot is held; sync, another sync of this host holds its lock; stop on a fleet ledger, the host has not answered yet; worktree remove, the task's run is still live",
	],
	[
		'77',
		'refused because an agent asked (EX_NOPERM): effects approve and reject, accept, ack, send-back, review, decide, contract ready, take --for, looked, serve approve, serve tokens new and worktree remove --force say yes only for a person at a terminal; the attempt is recorded and shown in Needs you (docs/security.md)',
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
		'## Naming a task',
		'',
		'Every command that takes TASK looks it up the same way (`src/core/task-ref.ts`), first match wins:',
		'',
		'1. the task id, whole;',
		'2. the start of one task id (`w-3f2c`);',
		'3. a session id (a Claude Code or Codex session the task records);',
		"4. a task's title, whole, in any case and without the spaces around it (`'fix export'`);",
		"5. the start of a title (`'fix exp'`).",
		'',
		'A whole title wins over the titles it begins. Where a title (or its start) matches several tasks and',
		"exactly one of them is still running, it is that one (`stop 'fix export'` means the run going on, not",
		"last week's run of the same title). Otherwise several matches at any step are one line naming each",
		'candidate with its title (five, then how many more), and exit 64:',
		'',
		'```text',
		'controlroom: stop: task \'fix\' is ambiguous: it matches w-9c1e2f "fix export", w-41d0aa "fix import"; give more of the id or the title',
		'```',
		'',
		"Completion (`controlroom completion bash|zsh|fish`) offers the ledger's task ids with their titles.",
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
