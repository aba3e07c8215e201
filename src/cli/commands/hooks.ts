import {existsSync, mkdirSync, statSync} from 'node:fs';
import {join, resolve} from 'node:path';
import {formatDuration} from '../../core/format.ts';
import {DEFAULT_DECISION_WINDOW_S} from '../../gates/permission-hook.ts';
import {controlroomHome, spoolDir} from '../../ledger/paths.ts';
import {droppedEvents} from '../../ledger/drop-markers.ts';
import {spoolBacklog, spoolWritability} from '../../ledger/spool.ts';
import {describeDropped} from '../../producers/doctor.ts';
import {
	CLAUDE_EVENTS,
	CODEX_EVENTS,
	CODEX_TIMEOUTS,
	hookArgv,
	hookCommand,
	hookKind,
	installedCommands,
	installHooksFile,
	installNotify,
	installTargets,
	notifyStatus,
	handoffHookEntry,
	permissionHookEntry,
	collisionHookEntry,
	SettingsError,
	uninstallHooksFile,
	uninstallNotify,
	type FileChange,
	type HookKind,
} from '../../producers/agent-hook/hooks-install.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {packageRoot} from '../package-root.ts';
import {otlpBaseUrl} from '../../core/otel/claude-telemetry.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {installCodexTelemetry} from '../../producers/agent-hook/codex-telemetry.ts';
import {installTelemetrySettings} from '../../producers/agent-hook/telemetry-settings.ts';
import {ledgerKey} from '../../ledger/secrets.ts';

export const help: CommandHelp = {
	synopsis: [
		'hooks install [--claude] [--codex] [--user | --project DIR [--create]] [--direct]',
		'hooks install --claude --decision-window SECONDS',
		'hooks install [--claude] [--codex] --otel URL',
		'hooks uninstall [--claude] [--codex] [--user | --project DIR]',
		'hooks status [--project DIR]',
	],
	description: `install: adds our hook to Claude Code's settings ($CLAUDE_CONFIG_DIR/settings.json when
set, else ~/.claude/settings.json; DIR/.claude/settings.json with --project) and to Codex's
$CODEX_HOME/hooks.json (default ~/.codex), and sets Codex's notify in $CODEX_HOME/config.toml where
none is set. Keeps every other hook; running it twice changes nothing. Without --claude or --codex
it does both. The hook is a shell script that spools each event (no Node start; the board, the
reconciler and every reading command fold the spool); --direct installs \`controlroom hook\`
instead, which writes the ledger itself. For Claude Code it also installs the PermissionRequest
hook (\`controlroom permission-hook\`), which puts each permission dialog's question on the board
and waits for an answer there while the dialog stays usable (docs/decisions.md).
uninstall: removes exactly those entries. status: names each file it read, what chose it, what is
installed there and of which kind, what waits in the spool, and whether the hook can write there.
(docs/hooks.md)`,
	options: [
		['--claude', "Claude Code's settings only"],
		['--codex', "Codex's hooks.json and notify only"],
		['--user', "Claude Code's user settings, $CLAUDE_CONFIG_DIR or ~/.claude settings.json (the default)"],
		['--project DIR', "Claude Code's settings of the project in DIR, a folder that must exist"],
		['--create', 'install: make the --project folder when it does not exist (else exit 64)'],
		[
			'--otel URL',
			"also point the agents' telemetry at `controlroom otel receive` at URL, with the receiver's key: Claude Code's settings' env, Codex's [otel] table in config.toml (docs/otel.md)",
		],
		['--direct', 'install the Node hook (`controlroom hook`, writes the ledger itself) instead of the spool hook'],
		[
			'--decision-window SECONDS',
			`how long Claude Code's PermissionRequest hook waits for an answer from the board or \`decide\` (default ${DEFAULT_DECISION_WINDOW_S}; its dialog works all along)`,
		],
	],
	hasNoLedger: true,
	exits: [
		['0', 'done (the lines say what changed, or that nothing had to)'],
		['1', 'a settings file is not valid JSON or cannot be written (named; left untouched)'],
		['64', 'bad command line: no verb, an unknown one, --user with --project, a --project folder that does not exist'],
	],
	examples: [
		['controlroom hooks install', 'every Claude Code and Codex session reports in'],
		['controlroom hooks install --claude --project ~/src/app', "one project's Claude Code settings"],
		['controlroom hooks status', 'what is installed where'],
	],
};

/** What the installed commands run: this node and bin for the Node hook, the spool hook's script, all absolute. */
function hookPaths(): {program: string[]; spoolScript: string; decision: {node: string; bin: string; script: string}} {
	const root = packageRoot();
	const bin = join(root, 'bin', 'controlroom');
	return {
		program: [process.execPath, bin],
		decision: {node: process.execPath, bin, script: join(root, 'dist', 'cli', 'decision-hook.sh')},
		// The build copies it from src/producers/agent-hook/, so it ships in the package with dist/.
		spoolScript: join(root, 'dist', 'producers', 'spool-hook.sh'),
	};
}

function describeChange(agent: string, change: FileChange, verb: string): string {
	if (!change.isChanged) return `${agent}: ${change.file}: nothing to ${verb === 'added' ? 'add, already installed' : 'remove'}`;
	return `${agent}: ${change.file}: ${verb} ${change.what === 'notify' ? 'notify' : `hooks for ${change.events.join(', ')}`}`;
}

function runInstall(
	targets: ReturnType<typeof installTargets>,
	agents: {claude: boolean; codex: boolean},
	options: {isProject: boolean; kind: HookKind; windowSeconds: number},
): void {
	const paths = hookPaths();
	if (agents.claude) {
		const command = hookCommand(hookArgv(options.kind, paths, 'claude'));
		const permission = permissionHookEntry(paths.decision, options.windowSeconds);
		const handoff = handoffHookEntry(paths.program);
		const collision = collisionHookEntry(paths.decision);
		out(
			describeChange(
				'claude',
				installHooksFile(targets.claudeSettings, CLAUDE_EVENTS, command, [permission, collision, handoff]),
				'added',
			),
		);
	}
	if (agents.codex) {
		if (options.isProject) out(`codex: reads hooks only from $CODEX_HOME (${targets.codexHome}); installing there`);
		const hooksFile = join(targets.codexHome, 'hooks.json');
		const command = hookCommand(hookArgv(options.kind, paths, 'codex'));
		out(describeChange('codex', installHooksFile(hooksFile, CODEX_EVENTS, command, [], CODEX_TIMEOUTS), 'added'));
		const notify = installNotify(join(targets.codexHome, 'config.toml'), hookArgv(options.kind, paths, 'codex'));
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

const KIND_NAMES: Record<HookKind, string> = {spool: 'spool hook', direct: 'direct Node hook'};

/** A spool hook command whose script is gone (the package moved, was removed, or was never built) records nothing. */
function missingScript(command: string): string | null {
	const script = /(\S*spool-hook\.sh)/.exec(command.replace(/'/g, ''))?.[1];
	return script && !existsSync(script) ? script : null;
}

function describeInstalled(agent: string, file: string, expected: readonly string[]): string {
	const all = installedCommands(file);
	// The PermissionRequest hook is told apart: it is not the lifecycle hook (docs/decisions.md).
	const isPermission = (entry: {event: string}) => entry.event === 'PermissionRequest';
	// So is the SessionStart handoff hook (docs/handoffs.md).
	const isHandoff = (entry: {command: string}) => /\shandoff-hook(\s|$)/.test(entry.command);
	const commands = all.filter(entry => !isPermission(entry) && !isHandoff(entry));
	const handoffText = all.some(isHandoff) ? '; SessionStart: the handoff hook' : '';
	const permission = all.find(isPermission);
	const permissionText = permission
		? `; PermissionRequest: ${permission.command.includes('permission-hook') ? 'the decisions hook' : KIND_NAMES[hookKind(permission.command)]}`
		: '';
	if (commands.length === 0) return `${agent}: ${file}: not installed${permissionText}${handoffText}`;
	const events = commands.map(entry => entry.event);
	const missing = expected.filter(event => !events.includes(event));
	const kinds = [...new Set(commands.map(entry => KIND_NAMES[hookKind(entry.command)]))].join(' and ');
	const scripts = [...new Set(commands.flatMap(entry => missingScript(entry.command) ?? []))];
	return (
		`${agent}: ${file}: installed for ${events.length} events (${kinds})${missing.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}${permissionText}${handoffText}` +
		(scripts.length > 0 ? `; its script ${scripts.join(', ')} is missing, so nothing is recorded: run hooks install again` : '')
	);
}

/** What waits in the spool, or why it cannot be read (a file where the folder should be, say). */
function describeBacklog(dir: string, now: number): {text: string; staleTemporary: number} {
	let backlog;
	try {
		backlog = spoolBacklog(dir, now);
	} catch (error) {
		return {text: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, staleTemporary: 0};
	}
	if (backlog.files === 0) return {text: 'nothing waiting', staleTemporary: backlog.staleTemporary};
	const files = `${backlog.files} file${backlog.files === 1 ? '' : 's'} waiting (${Math.ceil(backlog.bytes / 1024)} KiB)`;
	const oldest = `the oldest written ${formatDuration(now - (backlog.oldestAt ?? now))} ago`;
	return {
		text: `${files}, ${oldest}; the board, the reconciler and every reading command fold them`,
		staleTemporary: backlog.staleTemporary,
	};
}

/** What waits in the spool, and whether the hook can write there (checked by trying). */
function describeSpool(now: number): string[] {
	const ledgerFile = join(controlroomHome(), 'ledger.db');
	const dir = spoolDir(ledgerFile);
	const backlog = describeBacklog(dir, now);
	const lines = [`spool: ${dir}: ${backlog.text}`];
	if (backlog.staleTemporary > 0) {
		lines.push(
			`spool: ${backlog.staleTemporary} unfinished temporary file(s): hooks killed while writing; those events are lost`,
		);
	}
	const writable = spoolWritability(dir);
	lines.push(writable.isWritable ? 'spool: the hook can write there' : `spool: the hook cannot write: ${writable.reason}`);
	const {counted, waiting} = droppedWithLedger(ledgerFile, dir);
	if (counted + waiting > 0) {
		lines.push(
			`spool: ${counted + waiting} hook event${counted + waiting === 1 ? ' was' : 's were'} dropped, written neither to the ledger nor to the spool (a full disk?): ${describeDropped(counted, waiting)}`,
		);
	}
	return lines;
}

/** The drops counted in the ledger (read when there is one; never created here) and the markers waiting. */
function droppedWithLedger(ledgerFile: string, dir: string): {counted: number; waiting: number} {
	if (!existsSync(ledgerFile)) return droppedEvents(null, dir);
	let ledger;
	try {
		ledger = openCommandLedger(undefined, {mode: 'read'});
	} catch {
		return droppedEvents(null, dir);
	}
	try {
		return droppedEvents(ledger, dir);
	} finally {
		ledger.close();
	}
}

/** What chose a file, in the words a user checks: ` (from $CLAUDE_CONFIG_DIR)`, or nothing for the default. */
function origin(reason: string): string {
	return reason === 'default' ? '' : ` (from ${reason.startsWith('--') ? reason : `$${reason}`})`;
}

function runStatus(project: string | undefined): void {
	const user = installTargets({});
	out(describeInstalled(`claude (user)${origin(user.claudeChosenBy)}`, user.claudeSettings, CLAUDE_EVENTS));
	if (project) out(describeInstalled('claude (project)', installTargets({project}).claudeSettings, CLAUDE_EVENTS));
	out(describeInstalled(`codex${origin(user.codexChosenBy)}`, join(user.codexHome, 'hooks.json'), CODEX_EVENTS));
	const notifyFile = join(user.codexHome, 'config.toml');
	const notify = notifyStatus(notifyFile);
	const notifyText =
		notify === 'other'
			? 'set to another program (not ours)'
			: notify === 'unset'
				? 'not set'
				: `installed (${KIND_NAMES[notify]})`;
	out(`codex: ${notifyFile}: notify ${notifyText}`);
	for (const line of describeSpool(Date.now())) out(line);
}

/**
 * `--otel URL`: the agents' telemetry settings, pointed at the receiver at URL with the receiver's
 * key, which is the ledger's where the hooks write ($CONTROLROOM_HOME: made there if it is not yet).
 */
function installTelemetry(
	targets: ReturnType<typeof installTargets>,
	agents: {claude: boolean; codex: boolean},
	otel: string,
): void {
	const ledger = openCommandLedger(undefined, {mode: 'create'});
	let key: string;
	try {
		key = ledgerKey(ledger, 'otel');
	} finally {
		ledger.close();
	}
	if (agents.claude) {
		const written = installTelemetrySettings(targets.claudeSettings, otel, key);
		out(
			written.changed.length === 0
				? `claude: ${written.file}: telemetry settings already point at ${otel}`
				: `claude: ${written.file}: set ${written.changed.join(', ')} (telemetry to ${otel}, with the receiver's key)`,
		);
	}
	if (agents.codex) {
		const written = installCodexTelemetry(join(targets.codexHome, 'config.toml'), otel, key);
		out(
			written.state === 'theirs'
				? `codex: ${written.file}: has an [otel] table of its own, left as it is; to send here, remove it and run this again (docs/otel.md)`
				: written.state === 'unchanged'
					? `codex: ${written.file}: [otel] already points at ${otel}`
					: `codex: ${written.file}: set [otel] (logs to ${otel}/v1/logs, with the receiver's key)`,
		);
	}
}

/** `--decision-window SECONDS`: how long the PermissionRequest hook waits for an answer from controlroom. */
function decisionWindow(text: string | undefined): number {
	if (text === undefined) return DEFAULT_DECISION_WINDOW_S;
	const value = Number(text);
	if (!/^\d+$/.test(text) || value < 1 || value > 86_400) {
		throw new CliError(`hooks: --decision-window: expected whole seconds from 1 to 86400, got '${text}'`, USAGE_EXIT);
	}
	return value;
}

/**
 * `--project DIR` names a project that exists: a typo must not become a new folder with settings
 * in it and a yes. With `--create` (install) the folder is made, and the command says so.
 */
function projectFolder(project: string, create: boolean): void {
	const folder = resolve(project);
	let stat;
	try {
		stat = statSync(folder);
	} catch {
		stat = null;
	}
	if (stat?.isDirectory()) return;
	if (stat !== null) throw new CliError(`hooks: --project ${terminalSafe(folder)} is not a folder`, USAGE_EXIT);
	if (!create)
		throw new CliError(
			`hooks: --project ${terminalSafe(folder)}: no such folder; nothing was written (check the path, or add --create to make it)`,
			USAGE_EXIT,
		);
	mkdirSync(folder, {recursive: true});
	out(`hooks: created the folder ${folder} (--create)`);
}

/** `controlroom hooks install|uninstall|status`. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('hooks', argv, {
		claude: {type: 'boolean'},
		codex: {type: 'boolean'},
		user: {type: 'boolean'},
		project: {type: 'string'},
		direct: {type: 'boolean'},
		create: {type: 'boolean'},
		'decision-window': {type: 'string'},
		otel: {type: 'string'},
	});
	if (values.ledger !== undefined)
		throw new CliError('hooks: takes no --ledger; the hooks write to $CONTROLROOM_HOME', USAGE_EXIT);
	const [verb, ...extra] = positionals;
	if (extra.length > 0) throw new CliError(`hooks: unexpected argument '${extra[0]}'`, USAGE_EXIT);
	if (values.user && values.project !== undefined) throw new CliError('hooks: --user and --project are exclusive', USAGE_EXIT);
	const both = !values.claude && !values.codex;
	const agents = {claude: both || values.claude === true, codex: both || values.codex === true};
	if (values.create && (verb !== 'install' || values.project === undefined))
		throw new CliError('hooks: --create goes with install --project DIR', USAGE_EXIT);
	if (values.project !== undefined) projectFolder(values.project, verb === 'install' && values.create === true);
	const targets = installTargets(values.project !== undefined ? {project: values.project} : {});
	try {
		if (verb !== 'install' && values.direct) throw new CliError('hooks: --direct goes with install', USAGE_EXIT);
		if (verb !== 'install' && values['decision-window'] !== undefined)
			throw new CliError('hooks: --decision-window goes with install', USAGE_EXIT);
		if (values.otel !== undefined && verb !== 'install') throw new CliError('hooks: --otel goes with install', USAGE_EXIT);
		const otel = values.otel === undefined ? null : otlpBaseUrl(values.otel);
		if (values.otel !== undefined && otel === null)
			throw new CliError(`hooks: --otel: expected an http:// or https:// URL, got '${terminalSafe(values.otel)}'`, USAGE_EXIT);
		if (verb === 'install') {
			if (otel !== null) installTelemetry(targets, agents, otel);
			runInstall(targets, agents, {
				isProject: values.project !== undefined,
				kind: values.direct ? 'direct' : 'spool',
				windowSeconds: decisionWindow(values['decision-window']),
			});
		} else if (verb === 'uninstall') runUninstall(targets, agents);
		else if (verb === 'status') runStatus(values.project);
		else throw new CliError(`hooks: expected install, uninstall or status, got '${verb ?? ''}'`, USAGE_EXIT);
	} catch (error) {
		if (error instanceof SettingsError) throw new CliError(`hooks: ${error.message}`);
		throw error;
	}
	return 0;
}
