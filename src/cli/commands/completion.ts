import {existsSync} from 'node:fs';
import {cutCells} from '../../core/cell-width.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {openLedger} from '../../ledger/open-ledger.ts';
import {ledgerPath} from '../../ledger/paths.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {optionsOf, type CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['completion bash|zsh|fish', 'completion --tasks [--ledger PATH]'],
	description: `Prints a completion script for your shell: commands (with their summaries in zsh and fish), each
command's flags, the verbs of contract, effects, hooks, order and config, the ledger's task ids with
their titles wherever a command takes TASK (and for --task, --resume), the lanes of --fail-on, the
keys of config show, the values of flags such as --on-budget, and file names where a value is a path.
Load it from your shell's startup file (below); it is made from the same command table as --help, so
it stays in step with the installed version. --tasks is what the scripts run at each TAB: the
ledger's tasks (running first, then those ended in the last week, 200 at most) as id, a tab, and the
title; it never creates a ledger and prints nothing when there is none.`,
	options: [['--tasks', "print the ledger's tasks, id TAB title, for the scripts"]],
	hasNoLedger: true,
	exits: [
		['0', 'printed'],
		['64', 'no shell, or one other than bash, zsh or fish'],
	],
	examples: [
		['controlroom completion bash >> ~/.bashrc', 'bash (or: source <(controlroom completion bash))'],
		['controlroom completion zsh > "${fpath[1]}/_controlroom"', 'zsh, from a folder on $fpath (then compinit)'],
		['controlroom completion fish > ~/.config/fish/completions/controlroom.fish', 'fish'],
	],
};

/** Where completion offers the ledger's tasks, the values of a flag, or the words after a verb. */
type ValueSource = 'tasks' | readonly string[];

/** What completes after a command: its flags, the verbs some commands take first, and the values its words take. */
export type CompletionEntry = {
	readonly name: string;
	readonly summary: string;
	readonly flags: readonly string[];
	readonly verbs: readonly string[];
	/** Flags that take a value (the word after them is that value, not a positional). */
	readonly valued: readonly string[];
	/** Its first positional is a TASK: completion offers the ledger's task ids with their titles. */
	readonly takesTask: boolean;
	/** A flag's values: the ledger's tasks (`--task TASK`), or a list (`--fail-on LANE`, `--on-budget stop|ask`). */
	readonly flagValues: Readonly<Record<string, ValueSource>>;
	/** The word after a verb (`config show KEY`): its values. */
	readonly verbValues: Readonly<Record<string, readonly string[]>>;
};

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** The long flags a help lists (`--fail-on LANE` → `--fail-on`; `-h, --help` → `--help`). */
function flagsOf(commandHelp: CommandHelp): string[] {
	return optionsOf(commandHelp).flatMap(([flag]) => flag.match(/--[a-z][a-z-]*/g) ?? []);
}

/** What a placeholder offers: the ledger's tasks, a help's choices, or the values it spells (`stop|ask`). */
function placeholderValues(placeholder: string, commandHelp: CommandHelp): ValueSource | null {
	if (placeholder === 'TASK') return 'tasks';
	const choices = commandHelp.choices?.[placeholder];
	if (choices !== undefined) return choices;
	return /^[a-z][a-z-]*(\|[a-z][a-z-]*)+$/.test(placeholder) ? placeholder.split('|') : null;
}

/** The flags that take a value, and the values completion offers for some of them. */
function valuesOf(commandHelp: CommandHelp): {valued: string[]; flagValues: Record<string, ValueSource>} {
	const valued: string[] = [];
	const flagValues: Record<string, ValueSource> = {};
	for (const [flag] of optionsOf(commandHelp)) {
		const match = /^(--[a-z][a-z-]*)[ =](\S+)/.exec(flag);
		if (!match?.[1] || !match[2]) continue;
		valued.push(match[1]);
		const values = placeholderValues(match[2], commandHelp);
		if (values !== null) flagValues[match[1]] = values;
	}
	return {valued, flagValues};
}

/** The verbs a command's synopsis lines start with (`effects list|approve|reject` → list, approve, reject). */
function verbsOf(name: string, commandHelp: CommandHelp): string[] {
	const verbs = new Set<string>();
	for (const line of commandHelp.synopsis) {
		const [first, second] = line.split(/\s+/);
		if (first !== name || second === undefined || second.startsWith('-') || second.startsWith('[')) continue;
		if (/^[a-z][a-z|-]*$/.test(second)) for (const verb of second.split('|')) verbs.add(verb);
	}
	return [...verbs];
}

/** `config show KEY`: the values of the word after a verb, where the help names them. */
function verbValuesOf(name: string, commandHelp: CommandHelp): Record<string, readonly string[]> {
	const values: Record<string, readonly string[]> = {};
	for (const line of commandHelp.synopsis) {
		const [first, verb, placeholder] = line.split(/\s+/);
		if (first !== name || verb === undefined || placeholder === undefined || !/^[a-z]/.test(verb)) continue;
		const choices = commandHelp.choices?.[placeholder.replace(/^\[|\]$/g, '')];
		if (choices !== undefined) values[verb] = choices;
	}
	return values;
}

/** A command's completion entry, from its help alone. */
export function completionEntry(name: string, summary: string, commandHelp: CommandHelp): CompletionEntry {
	return {
		name,
		summary,
		flags: flagsOf(commandHelp),
		verbs: verbsOf(name, commandHelp),
		...valuesOf(commandHelp),
		takesTask: commandHelp.synopsis.some(line => line.split(/\s+/)[1] === 'TASK'),
		verbValues: verbValuesOf(name, commandHelp),
	};
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

function bashScript(entries: readonly CompletionEntry[]): string {
	const cases = entries
		.map(entry => {
			const verbValues = Object.entries(entry.verbValues)
				.map(([verb, values]) => `[[ $n -eq 1 && \${COMP_WORDS[2]} == ${verb} ]] && words=${quote(values.join(' '))}; `)
				.join('');
			return `\t\t${entry.name}) ${[
				`valued=${quote(entry.valued.join(' '))}`,
				...Object.entries(entry.flagValues).map(
					([flag, values]) =>
						`[[ $prev == ${flag} ]] && { ${values === 'tasks' ? '_controlroom_tasks' : `COMPREPLY=($(compgen -W ${quote(values.join(' '))} -- "$cur"))`}; return; }`,
				),
				'n=$(_controlroom_positionals "$valued")',
				`if [[ $cur == -* ]]; then words=${quote(entry.flags.join(' '))}`,
				entry.takesTask
					? 'elif [ "$n" -eq 0 ]; then _controlroom_tasks; return'
					: `elif [ "$n" -eq 0 ]; then words=${quote(entry.verbs.join(' '))}`,
				`else words=''; ${verbValues}fi ;;`,
			].join('; ')}`;
		})
		.join('\n');
	return `# controlroom completion for bash: source <(controlroom completion bash)
# Positionals before the cursor, the values of flags not counted.
_controlroom_positionals() {
	local i n=0 skip=0
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "$skip" -eq 1 ]; then skip=0; continue; fi
		case " $1 " in *" \${COMP_WORDS[i]} "*) skip=1; continue ;; esac
		[[ \${COMP_WORDS[i]} == -* ]] || n=$((n + 1))
	done
	echo "$n"
}
# The ledger's tasks (the one --ledger names, else the default), id and title; one match is its id alone.
_controlroom_tasks() {
	local i cur=\${COMP_WORDS[COMP_CWORD]} line ids=() shown=() ledger=()
	for ((i = 2; i < COMP_CWORD; i++)); do
		[[ \${COMP_WORDS[i]} == --ledger ]] && ledger=(--ledger "\${COMP_WORDS[i + 1]}")
	done
	while IFS=$'\\t' read -r id title; do
		[[ $id == "$cur"* ]] || continue
		ids+=("$id")
		shown+=("$id  $title")
	done < <(command controlroom completion --tasks "\${ledger[@]}" 2>/dev/null)
	compopt +o filenames 2>/dev/null
	if [ \${#ids[@]} -eq 1 ]; then COMPREPLY=("\${ids[0]}"); else COMPREPLY=("\${shown[@]}"); fi
}
_controlroom() {
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD - 1]} words='' valued='' n=0
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W ${quote([...entries.map(entry => entry.name), '--help', '--version'].join(' '))} -- "$cur"))
		return
	fi
	case "\${COMP_WORDS[1]}" in
${cases}
		*) words='' ;;
	esac
	[ -n "$words" ] && COMPREPLY=($(compgen -W "$words" -- "$cur"))
	[ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _controlroom controlroom
`;
}

function zshScript(entries: readonly CompletionEntry[]): string {
	const described = entries.map(entry => `\t\t${quote(`${entry.name}:${entry.summary.replaceAll(':', '\\:')}`)}`).join('\n');
	const cases = entries
		.map(entry => {
			const flagValues = Object.entries(entry.flagValues).map(
				([flag, values]) =>
					`[[ $words[CURRENT-1] == ${flag} ]] && { ${values === 'tasks' ? '_controlroom_tasks' : `compadd -- ${values.join(' ')}`}; return; }; `,
			);
			const verbValues = Object.entries(entry.verbValues).map(
				([verb, values]) => `(( n == 1 )) && [[ $words[3] == ${verb} ]] && { compadd -- ${values.join(' ')}; return; }; `,
			);
			const first = entry.takesTask
				? '(( n == 0 )) && { _controlroom_tasks; return; }; '
				: entry.verbs.length > 0
					? `(( n == 0 )) && { compadd -- ${entry.verbs.join(' ')}; return; }; `
					: '';
			return `\t\t${entry.name}) ${flagValues.join('')}n=$(_controlroom_positionals ${quote(entry.valued.join(' '))}); [[ $PREFIX == -* ]] && { compadd -- ${entry.flags.join(' ')}; return; }; ${first}${verbValues.join('')}_files ;;`;
		})
		.join('\n');
	return `#compdef controlroom
# controlroom completion for zsh: put this file on $fpath as _controlroom (or source it after compinit).
# Positionals before the cursor, the values of flags not counted.
_controlroom_positionals() {
	local i n=0 skip=0
	for (( i = 3; i < CURRENT; i++ )); do
		if (( skip )); then skip=0; continue; fi
		if [[ " $1 " == *" $words[i] "* ]]; then skip=1; continue; fi
		[[ $words[i] == -* ]] || (( n++ ))
	done
	print -r -- $n
}
# The ledger's tasks (the one --ledger names, else the default), each with its title.
_controlroom_tasks() {
	local -a tasks ledger
	local line i
	for (( i = 3; i < CURRENT; i++ )); do [[ $words[i] == --ledger ]] && ledger=(--ledger $words[i+1]); done
	for line in \${(f)"$(command controlroom completion --tasks $ledger 2>/dev/null)"}; do
		[[ -n $line ]] && tasks+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
	done
	_describe 'task' tasks
}
_controlroom() {
	local -a commands
	local n
	commands=(
${described}
	)
	if (( CURRENT == 2 )); then
		_describe 'command' commands
		return
	fi
	case $words[2] in
${cases}
		*) _files ;;
	esac
}
if [ "$funcstack[1]" = "_controlroom" ]; then _controlroom "$@"; else compdef _controlroom controlroom; fi
`;
}

function fishScript(entries: readonly CompletionEntry[]): string {
	const lines = ['# controlroom completion for fish: save as ~/.config/fish/completions/controlroom.fish'];
	lines.push(
		`complete -c controlroom -n __fish_use_subcommand -l version -d 'print the version'`,
		`complete -c controlroom -n __fish_use_subcommand -l help -d 'list the commands'`,
	);
	// The ledger's tasks, each with its title as fish's description (the helper prints id TAB title).
	const tasks = quote('(command controlroom completion --tasks 2>/dev/null)');
	for (const entry of entries) {
		const seen = quote(`__fish_seen_subcommand_from ${entry.name}`);
		lines.push(`complete -c controlroom -f -n __fish_use_subcommand -a ${entry.name} -d ${quote(entry.summary)}`);
		for (const verb of entry.verbs) lines.push(`complete -c controlroom -f -n ${seen} -a ${verb}`);
		if (entry.takesTask) lines.push(`complete -c controlroom -f -n ${seen} -a ${tasks}`);
		for (const [verb, values] of Object.entries(entry.verbValues))
			lines.push(
				`complete -c controlroom -f -n ${quote(`__fish_seen_subcommand_from ${entry.name}; and __fish_seen_subcommand_from ${verb}`)} -a ${quote(values.join(' '))}`,
			);
		for (const flag of entry.flags) {
			const values = entry.flagValues[flag];
			const offer = values === undefined ? '' : ` -x -a ${values === 'tasks' ? tasks : quote(values.join(' '))}`;
			lines.push(`complete -c controlroom -n ${seen} -l ${flag.slice(2)}${offer}`);
		}
	}
	return `${lines.join('\n')}\n`;
}

/** The script for `shell`, from every command's name, summary and help. */
export function completionScript(shell: Shell, entries: readonly CompletionEntry[]): string {
	switch (shell) {
		case 'bash':
			return bashScript(entries);
		case 'zsh':
			return zshScript(entries);
		case 'fish':
			return fishScript(entries);
	}
}

/** How many tasks `completion --tasks` prints: the newest, running ones first. */
const COMPLETED_TASKS = 200;
/** Ended tasks older than this are not offered. */
const COMPLETED_ENDED_MS = 7 * 24 * 3600 * 1000;

/**
 * `completion --tasks`: the ledger's tasks as `id TAB title` lines, for the scripts. Never creates
 * a ledger and never prints an error (a completion must not write into the person's prompt).
 */
function printTasks(ledgerFlag: string | undefined): number {
	const file = ledgerPath(ledgerFlag);
	if (!existsSync(file)) return 0;
	let ledger;
	try {
		ledger = openLedger(file, {isReadonly: true});
	} catch {
		return 0;
	}
	try {
		const tasks = ledger.reader.tasksForView(Date.now() - COMPLETED_ENDED_MS);
		const ordered = [...tasks.filter(task => task.endedAt === null), ...tasks.filter(task => task.endedAt !== null)];
		const lines = ordered.slice(0, COMPLETED_TASKS).map(task => {
			const title = cutCells(terminalSafe((task.title ?? '').replace(/\s+/g, ' ').trim()), 60);
			return `${terminalSafe(task.id).replace(/\s+/g, '')}\t${title || task.status}`;
		});
		if (lines.length > 0) out(lines.join('\n'));
	} catch {
		// A damaged or future ledger: nothing to offer.
	} finally {
		ledger.close();
	}
	return 0;
}

/** The commands to complete, as the command table (src/cli/main.ts) lists them. */
type CommandTable = Readonly<
	Record<string, {readonly summary: string; readonly load: () => Promise<{readonly help: CommandHelp}>}>
>;

/**
 * `controlroom completion bash|zsh|fish`, over the command table it is given: main.ts passes its
 * own, so this module never imports main.ts, which imports it.
 */
export async function run(argv: readonly string[], commands: CommandTable): Promise<number> {
	const {values, positionals} = parseCommandArgs('completion', argv, {tasks: {type: 'boolean'}});
	if (values.tasks) return printTasks(values.ledger);
	if (values.ledger !== undefined) throw new CliError('completion: --ledger goes with --tasks', USAGE_EXIT);
	const [shell, ...rest] = positionals;
	if (shell === undefined || rest.length > 0 || !(SHELLS as readonly string[]).includes(shell))
		throw new CliError(`completion: expected one shell, bash, zsh or fish${shell ? `, got '${shell}'` : ''}`, USAGE_EXIT);
	const entries = await Promise.all(
		Object.entries(commands).map(async ([name, command]) => completionEntry(name, command.summary, (await command.load()).help)),
	);
	out(completionScript(shell as Shell, entries).trimEnd());
	return 0;
}
