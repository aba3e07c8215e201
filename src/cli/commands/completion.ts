import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {optionsOf, type CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['completion bash|zsh|fish'],
	description: `Prints a completion script for your shell: commands (with their summaries in zsh and fish), each
command's flags, the verbs of contract, effects, hooks, order and config, and file names where a
value is a path. Load it from your shell's startup file (below); it is made from the same command
table as --help, so it stays in step with the installed version.`,
	options: [],
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

/** What completes after a command: its flags, and the verbs some commands take first. */
export type CompletionEntry = {
	readonly name: string;
	readonly summary: string;
	readonly flags: readonly string[];
	readonly verbs: readonly string[];
};

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** The long flags a help lists (`--fail-on LANE` → `--fail-on`; `-h, --help` → `--help`). */
function flagsOf(commandHelp: CommandHelp): string[] {
	return optionsOf(commandHelp).flatMap(([flag]) => flag.match(/--[a-z][a-z-]*/g) ?? []);
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

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

function bashScript(entries: readonly CompletionEntry[]): string {
	const cases = entries
		.map(entry => `\t\t${entry.name}) words=${quote([...entry.verbs, ...entry.flags].join(' '))} ;;`)
		.join('\n');
	return `# controlroom completion for bash: source <(controlroom completion bash)
_controlroom() {
	local cur=\${COMP_WORDS[COMP_CWORD]} words
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W ${quote([...entries.map(entry => entry.name), '--help', '--version'].join(' '))} -- "$cur"))
		return
	fi
	case "\${COMP_WORDS[1]}" in
${cases}
		*) words='' ;;
	esac
	if [[ "$cur" == -* || $COMP_CWORD -eq 2 ]]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); fi
	[ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _controlroom controlroom
`;
}

function zshScript(entries: readonly CompletionEntry[]): string {
	const described = entries.map(entry => `\t\t${quote(`${entry.name}:${entry.summary.replaceAll(':', '\\:')}`)}`).join('\n');
	const cases = entries
		.map(entry => {
			const verbs = entry.verbs.length > 0 ? `(( CURRENT == 3 )) && compadd -- ${entry.verbs.join(' ')}; ` : '';
			return `\t\t${entry.name}) ${verbs}compadd -- ${entry.flags.join(' ')}; _files ;;`;
		})
		.join('\n');
	return `#compdef controlroom
# controlroom completion for zsh: put this file on $fpath as _controlroom (or source it after compinit).
_controlroom() {
	local -a commands
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
	for (const entry of entries) {
		lines.push(`complete -c controlroom -f -n __fish_use_subcommand -a ${entry.name} -d ${quote(entry.summary)}`);
		for (const verb of entry.verbs)
			lines.push(`complete -c controlroom -f -n ${quote(`__fish_seen_subcommand_from ${entry.name}`)} -a ${verb}`);
		for (const flag of entry.flags)
			lines.push(`complete -c controlroom -n ${quote(`__fish_seen_subcommand_from ${entry.name}`)} -l ${flag.slice(2)}`);
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

/** The commands to complete, as the command table (src/cli/main.ts) lists them. */
type CommandTable = Readonly<
	Record<string, {readonly summary: string; readonly load: () => Promise<{readonly help: CommandHelp}>}>
>;

/**
 * `controlroom completion bash|zsh|fish`, over the command table it is given: main.ts passes its
 * own, so this module never imports main.ts, which imports it.
 */
export async function run(argv: readonly string[], commands: CommandTable): Promise<number> {
	const {positionals} = parseCommandArgs('completion', argv, {});
	const [shell, ...rest] = positionals;
	if (shell === undefined || rest.length > 0 || !(SHELLS as readonly string[]).includes(shell))
		throw new CliError(`completion: expected one shell, bash, zsh or fish${shell ? `, got '${shell}'` : ''}`, USAGE_EXIT);
	const entries = await Promise.all(
		Object.entries(commands).map(async ([name, command]): Promise<CompletionEntry> => {
			const commandHelp = (await command.load()).help;
			return {name, summary: command.summary, flags: flagsOf(commandHelp), verbs: verbsOf(name, commandHelp)};
		}),
	);
	out(completionScript(shell as Shell, entries).trimEnd());
	return 0;
}
