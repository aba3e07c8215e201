import {join} from 'node:path';
import {
	CLAUDE_EVENTS,
	CODEX_EVENTS,
	hookCommand,
	installedEvents,
	installHooksFile,
	installNotify,
	installTargets,
	notifyStatus,
	SettingsError,
	uninstallHooksFile,
	uninstallNotify,
	type FileChange,
} from '../../producers/agent-hook/hooks-install.ts';
import {parseCommandArgs} from '../args.ts';
import {out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageRoot} from '../package-root.ts';

export const help: CommandHelp = {
	synopsis: [
		'hooks install [--claude] [--codex] [--user | --project DIR]',
		'hooks uninstall [--claude] [--codex] [--user | --project DIR]',
		'hooks status [--project DIR]',
	],
	description: `install: adds \`controlroom hook\` to Claude Code's settings (~/.claude/settings.json, or
DIR/.claude/settings.json with --project) and to Codex's $CODEX_HOME/hooks.json, and sets Codex's
notify in $CODEX_HOME/config.toml where none is set. Keeps every other hook; running it twice
changes nothing. Without --claude or --codex it does both.
uninstall: removes exactly those entries. status: says what is installed where. (docs/hooks.md)`,
	options: [
		['--claude', "Claude Code's settings only"],
		['--codex', "Codex's hooks.json and notify only"],
		['--user', "Claude Code's user settings, ~/.claude/settings.json (the default)"],
		['--project DIR', "Claude Code's settings of the project in DIR"],
	],
	hasNoLedger: true,
	exits: [
		['0', 'done (the lines say what changed, or that nothing had to)'],
		['1', 'a settings file is not valid JSON or cannot be written (named; left untouched)'],
		['64', 'bad command line: no verb, an unknown one, --user with --project'],
	],
	examples: [
		['controlroom hooks install', 'every Claude Code and Codex session reports in'],
		['controlroom hooks install --claude --project ~/src/app', "one project's Claude Code settings"],
		['controlroom hooks status', 'what is installed where'],
	],
};

/** The program the agents run: this node binary and this package's bin, both absolute. */
function program(): string[] {
	return [process.execPath, join(packageRoot(), 'bin', 'controlroom')];
}

function describeChange(agent: string, change: FileChange, verb: string): string {
	if (!change.isChanged) return `${agent}: ${change.file}: nothing to ${verb === 'added' ? 'add, already installed' : 'remove'}`;
	return `${agent}: ${change.file}: ${verb} ${change.what === 'notify' ? 'notify' : `hooks for ${change.events.join(', ')}`}`;
}

function runInstall(
	targets: ReturnType<typeof installTargets>,
	agents: {claude: boolean; codex: boolean},
	isProject: boolean,
): void {
	if (agents.claude) {
		out(
			describeChange(
				'claude',
				installHooksFile(targets.claudeSettings, CLAUDE_EVENTS, hookCommand(program(), 'claude')),
				'added',
			),
		);
	}
	if (agents.codex) {
		if (isProject) out(`codex: reads hooks only from $CODEX_HOME (${targets.codexHome}); installing there`);
		const hooksFile = join(targets.codexHome, 'hooks.json');
		out(describeChange('codex', installHooksFile(hooksFile, CODEX_EVENTS, hookCommand(program(), 'codex')), 'added'));
		const notify = installNotify(join(targets.codexHome, 'config.toml'), program());
		if (notify.existing !== null) {
			out(
				`codex: ${notify.file}: notify is already set (${notify.existing}); left as it is, so turn ends are not recorded from notify`,
			);
		} else {
			out(describeChange('codex', notify, 'added'));
		}
		out('codex: hooks run only once trusted (or with --dangerously-bypass-hook-trust); see docs/hooks.md');
	}
}

function runUninstall(targets: ReturnType<typeof installTargets>, agents: {claude: boolean; codex: boolean}): void {
	if (agents.claude) out(describeChange('claude', uninstallHooksFile(targets.claudeSettings), 'removed'));
	if (agents.codex) {
		out(describeChange('codex', uninstallHooksFile(join(targets.codexHome, 'hooks.json')), 'removed'));
		out(describeChange('codex', uninstallNotify(join(targets.codexHome, 'config.toml')), 'removed'));
	}
}

function describeInstalled(agent: string, file: string, expected: readonly string[]): string {
	const events = installedEvents(file);
	if (events.length === 0) return `${agent}: ${file}: not installed`;
	const missing = expected.filter(event => !events.includes(event));
	return `${agent}: ${file}: installed for ${events.length} events${missing.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}`;
}

function runStatus(project: string | undefined): void {
	const user = installTargets({});
	out(describeInstalled('claude (user)', user.claudeSettings, CLAUDE_EVENTS));
	if (project) out(describeInstalled('claude (project)', installTargets({project}).claudeSettings, CLAUDE_EVENTS));
	out(describeInstalled('codex', join(user.codexHome, 'hooks.json'), CODEX_EVENTS));
	const notifyFile = join(user.codexHome, 'config.toml');
	const notify = notifyStatus(notifyFile);
	out(
		`codex: ${notifyFile}: notify ${notify === 'ours' ? 'installed' : notify === 'other' ? 'set to another program (not ours)' : 'not set'}`,
	);
}

/** `controlroom hooks install|uninstall|status`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('hooks', argv, {
		claude: {type: 'boolean'},
		codex: {type: 'boolean'},
		user: {type: 'boolean'},
		project: {type: 'string'},
	});
	if (values.ledger !== undefined)
		throw new CliError('hooks: takes no --ledger; the hooks write to $CONTROLROOM_HOME', USAGE_EXIT);
	const [verb, ...extra] = positionals;
	if (extra.length > 0) throw new CliError(`hooks: unexpected argument '${extra[0]}'`, USAGE_EXIT);
	if (values.user && values.project !== undefined) throw new CliError('hooks: --user and --project are exclusive', USAGE_EXIT);
	const both = !values.claude && !values.codex;
	const agents = {claude: both || values.claude === true, codex: both || values.codex === true};
	const targets = installTargets(values.project !== undefined ? {project: values.project} : {});
	try {
		if (verb === 'install') runInstall(targets, agents, values.project !== undefined);
		else if (verb === 'uninstall') runUninstall(targets, agents);
		else if (verb === 'status') runStatus(values.project);
		else throw new CliError(`hooks: expected install, uninstall or status, got '${verb ?? ''}'`, USAGE_EXIT);
	} catch (error) {
		if (error instanceof SettingsError) throw new CliError(`hooks: ${error.message}`);
		throw error;
	}
	return 0;
}
