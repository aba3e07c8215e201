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
