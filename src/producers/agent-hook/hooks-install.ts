import {
	chmodSync,
	chownSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	readlinkSync,
	renameSync,
	statSync,
	unlinkSync,
	writeFileSync,
} from 'node:fs';
import {homedir} from 'node:os';
import {basename, dirname, join, resolve} from 'node:path';

/** Claude Code events the hook is installed for (docs/hooks.md, "Install"). */
export const CLAUDE_EVENTS = [
	'SessionStart',
	'SessionEnd',
	'UserPromptSubmit',
	'PreToolUse',
	'PostToolUse',
	'PostToolUseFailure',
	'PostToolBatch',
	'Notification',
	'Stop',
	'StopFailure',
	'SubagentStart',
	'SubagentStop',
	'PreCompact',
	'TaskCreated',
	'TaskCompleted',
] as const;

/**
 * Codex hook events (Claude-shaped payloads; the plan arrives as PostToolUse update_plan:
 * docs/hooks.md, "What the real clients send"). Codex 0.169 sends SessionEnd only to a hooks file
 * that asks for it: without it a Codex session never ends on the board.
 */
export const CODEX_EVENTS = ['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] as const;

/** Events whose entries take a tool matcher. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
/** Seconds the agent waits for the hook; it returns in milliseconds, this only bounds a pathological case. */
const HOOK_TIMEOUT_SECONDS = 10;
/**
 * Codex 0.169 caps a SessionEnd hook at 3 s and says so on every run when a file asks for more
 * (`clamping SessionEnd hook timeout to 3s in …/hooks.json`, an error item in `exec --json`, seen
 * with the real CLI): its SessionEnd entry asks for exactly the cap.
 */
export const CODEX_TIMEOUTS: Readonly<Record<string, number>> = {SessionEnd: 3};
const NOTIFY_COMMENT = '# added by `controlroom hooks install`; `controlroom hooks uninstall` removes it';

/**
 * Recognises a command of ours, whatever path it was installed from: the spool hook
 * (`/bin/sh .../spool-hook.sh`, the default) or the direct Node hook (`... controlroom hook`).
 */
const OUR_COMMAND = /(controlroom['"]?\s+(hook|permission-hook|collision-hook|handoff-hook)|spool-hook\.sh['"]?)(\s|$)/;
/** Our hooks that sit beside the lifecycle hook in the same event, each one entry of its own. */
const BESIDE_VERB = /controlroom['"]?\s+(permission-hook|collision-hook|handoff-hook)(\s|$)/;
/** The SessionStart handoff hook, which `hooks status` names apart from the lifecycle hook. */
const HANDOFF_HOOK = /controlroom['"]?\s+handoff-hook(\s|$)/;

/** Which of our entries a command is: the lifecycle hook (spool or direct), or a hook beside it by its verb. */
function roleOf(command: unknown): string {
	return (typeof command === 'string' ? BESIDE_VERB.exec(command)?.[1] : undefined) ?? 'lifecycle';
}
const SPOOL_HOOK = /spool-hook\.sh['"]?(\s|$)/;

/** Which of our hooks a command runs. */
export type HookKind = 'spool' | 'direct';

/** The kind of an installed command of ours. */
export function hookKind(command: string): HookKind {
	return SPOOL_HOOK.test(command) ? 'spool' : 'direct';
}

/** A problem with a file the user owns: reported with its path, the file left untouched. */
export class SettingsError extends Error {}

type Json = Record<string, unknown>;
type MatcherGroup = {matcher?: unknown; hooks?: unknown};

/** Where each agent reads its hooks, and why there. */
export type InstallTargets = {
	readonly claudeSettings: string;
	/** What chose the Claude settings file: `--project`, `CLAUDE_CONFIG_DIR`, or the default `~/.claude`. */
	readonly claudeChosenBy: '--project' | 'CLAUDE_CONFIG_DIR' | 'default';
	readonly codexHome: string;
	/** What chose the Codex folder: `CODEX_HOME`, or the default `~/.codex`. */
	readonly codexChosenBy: 'CODEX_HOME' | 'default';
};

/**
 * Resolves the files the agents read: `--project DIR` → DIR/.claude/settings.json; else
 * $CLAUDE_CONFIG_DIR/settings.json when set (Claude Code then reads only that folder's user
 * settings), else ~/.claude/settings.json. Codex → $CODEX_HOME, else ~/.codex.
 */
export function installTargets(options: {project?: string; env?: NodeJS.ProcessEnv}): InstallTargets {
	const env = options.env ?? process.env;
	const home = env['HOME'] ?? homedir();
	const configDir = env['CLAUDE_CONFIG_DIR'];
	const claude = options.project
		? {claudeSettings: join(resolve(options.project), '.claude', 'settings.json'), claudeChosenBy: '--project' as const}
		: configDir
			? {claudeSettings: join(resolve(configDir), 'settings.json'), claudeChosenBy: 'CLAUDE_CONFIG_DIR' as const}
			: {claudeSettings: join(home, '.claude', 'settings.json'), claudeChosenBy: 'default' as const};
	const codex = env['CODEX_HOME']
		? {codexHome: resolve(env['CODEX_HOME']), codexChosenBy: 'CODEX_HOME' as const}
		: {codexHome: join(home, '.codex'), codexChosenBy: 'default' as const};
	return {...claude, ...codex};
}

function shellQuote(word: string): string {
	return /^[\w./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The argv of our hook for an agent: the spool hook (`/bin/sh SCRIPT`, no Node start) or, with
 * `direct`, the Node hook (`NODE BIN hook`); absolute paths, so it works from any directory.
 */
export function hookArgv(
	kind: HookKind,
	paths: {readonly program: readonly string[]; readonly spoolScript: string},
	agent: 'claude' | 'codex',
): string[] {
	const base = kind === 'spool' ? ['/bin/sh', paths.spoolScript] : [...paths.program, 'hook'];
	return [...base, ...(agent === 'codex' ? ['--agent', 'codex'] : [])];
}

/** The hook command line for a settings file: the argv, quoted for the agent's shell. */
export function hookCommand(argv: readonly string[]): string {
	return argv.map(shellQuote).join(' ');
}

export function readJsonFile(file: string): Json | null {
	if (!existsSync(file)) return null;
	const text = readFileSync(file, 'utf8');
	if (text.trim().length === 0) return {};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new SettingsError(`${file}: not valid JSON; left untouched`);
	}
	if (!value || typeof value !== 'object' || Array.isArray(value))
		throw new SettingsError(`${file}: expected a JSON object; left untouched`);
	return value as Json;
}

/** The suffix of the copy of a settings file's previous content, kept beside it at each write. */
export const BACKUP_SUFFIX = '.controlroom-backup';
/** Mode of a settings file we create: settings can hold keys and environment, so the owner's only. */
const NEW_FILE_MODE = 0o600;

/** The file a path finally names, following symlinks (a dotfiles link), even to a target not made yet. */
function linkTarget(file: string): string {
	let current = resolve(file);
	for (let hops = 0; hops < 40; hops += 1) {
		let isLink: boolean;
		try {
			isLink = lstatSync(current).isSymbolicLink();
		} catch {
			return current; // nothing there yet: this is the file to create
		}
		if (!isLink) return current;
		current = resolve(dirname(current), readlinkSync(current));
	}
	throw new SettingsError(`${file}: too many levels of symbolic links; left untouched`);
}

/** Writes `text` to `file` with `mode` (and owner, as root) exactly, atomically: a temporary file in the same folder, renamed. */
function replaceFile(file: string, text: string, mode: number, owner: {uid: number; gid: number} | null): void {
	const temporary = join(dirname(file), `.${basename(file)}.controlroom-${process.pid}.tmp`);
	try {
		writeFileSync(temporary, text, {mode});
		chmodSync(temporary, mode); // the umask may have taken bits the user's file had
		if (owner && process.getuid?.() === 0) chownSync(temporary, owner.uid, owner.gid);
		renameSync(temporary, file);
	} catch (error) {
		try {
			unlinkSync(temporary);
		} catch {
			// never made
		}
		throw error;
	}
}

/**
 * Writes a file the user owns as they keep it: through a symlink to its target (a dotfiles link
 * stays a link), with the file's own mode and owner, atomically; and the previous content is kept
 * beside the path named, as NAME.controlroom-backup, with the same mode.
 */
export function writeAtomically(file: string, text: string): void {
	const target = linkTarget(file);
	mkdirSync(dirname(target), {recursive: true});
	let previous: {text: Buffer; mode: number; owner: {uid: number; gid: number}} | null = null;
	if (existsSync(target)) {
		const stat = statSync(target);
		previous = {text: readFileSync(target), mode: stat.mode & 0o7777, owner: {uid: stat.uid, gid: stat.gid}};
	}
	if (previous) replaceFile(`${resolve(file)}${BACKUP_SUFFIX}`, previous.text.toString('utf8'), previous.mode, previous.owner);
	replaceFile(target, text, previous?.mode ?? NEW_FILE_MODE, previous?.owner ?? null);
}

const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

function hooksObject(settings: Json, file: string): Json {
	const hooks = settings['hooks'];
	// `"hooks": null` says there are none: the same as no key.
	if (hooks === undefined || hooks === null) return {};
	if (!isRecord(hooks)) throw new SettingsError(`${file}: hooks: expected an object; left untouched`);
	return hooks;
}

/** An event's matcher groups as written; `null` means none. Entries that are not groups are kept as they are, never read. */
function groupsOf(hooks: Json, event: string, file: string): unknown[] {
	const groups = hooks[event];
	if (groups === undefined || groups === null) return [];
	if (!Array.isArray(groups)) throw new SettingsError(`${file}: hooks.${event}: expected a list; left untouched`);
	return groups as unknown[];
}

function isOurs(entry: unknown): boolean {
	return isRecord(entry) && typeof entry['command'] === 'string' && OUR_COMMAND.test(entry['command']);
}

/** A group's hook entries; a group that is not an object (null, a string) or has no list has none. */
function entriesOf(group: unknown): unknown[] {
	return isRecord(group) && Array.isArray((group as MatcherGroup).hooks) ? ((group as MatcherGroup).hooks as unknown[]) : [];
}

/** What one install or uninstall did to one file. */
export type FileChange = {
	readonly file: string;
	readonly what: string;
	/** Events added, updated or removed; empty when nothing changed. */
	readonly events: readonly string[];
	readonly isChanged: boolean;
};

/** One event's entry of ours, with a command and timeout of its own. */
export type HookEntry = {
	readonly event: string;
	readonly command: string;
	readonly timeoutSeconds: number;
	/** The tools it runs for (a tool event's matcher); `*` when not given. */
	readonly matcher?: string;
};

/** The tools the collision hook runs for: the calls that write one named file. */
export const COLLISION_HOOK_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit';

/**
 * Claude Code's PreToolUse hook for file writes (docs/decisions.md, "Collisions"): `NODE BIN
 * collision-hook`, only for Edit, Write, MultiEdit and NotebookEdit, so every other call pays nothing.
 */
export function collisionHookEntry(program: {readonly node: string; readonly bin: string}): HookEntry {
	return {
		event: 'PreToolUse',
		command: hookCommand([program.node, program.bin, 'collision-hook']),
		timeoutSeconds: HOOK_TIMEOUT_SECONDS,
		matcher: COLLISION_HOOK_MATCHER,
	};
}

/**
 * Claude Code's PermissionRequest hook (docs/decisions.md): `/bin/sh decision-hook.sh NODE BIN
 * permission-hook -- --window N`.
 * It waits, so its timeout is the window and a margin: at the timeout Claude ends it (SIGTERM)
 * and its dialog stays.
 */
export function permissionHookEntry(
	program: {readonly node: string; readonly bin: string; readonly script: string},
	windowSeconds: number,
): HookEntry {
	return {
		event: 'PermissionRequest',
		// The shell path answers what needs no ledger (src/cli/decision-hook.sh), Node the questions.
		command: hookCommand([
			'/bin/sh',
			program.script,
			program.node,
			program.bin,
			'permission-hook',
			'--',
			'--window',
			String(windowSeconds),
		]),
		timeoutSeconds: windowSeconds + 30,
	};
}

/**
 * Claude Code's SessionStart handoff hook (docs/handoffs.md): `NODE BIN handoff-hook`, which prints
 * the repository's latest handoff as the new session's context. A Node process, once per session.
 */
export function handoffHookEntry(program: readonly string[]): HookEntry {
	return {event: 'SessionStart', command: hookCommand([...program, 'handoff-hook']), timeoutSeconds: 15};
}

/**
 * Adds our entry to each event (or refreshes its command and timeout), and the `extra` entries,
 * in one write, keeping every other entry as it is. An event's timeout is `timeouts[event]` when
 * given (an agent's own cap), else 10 s.
 */
export function installHooksFile(
	file: string,
	events: readonly string[],
	command: string,
	extra: readonly HookEntry[] = [],
	timeouts: Readonly<Record<string, number>> = {},
): FileChange {
	const settings = readJsonFile(file) ?? {};
	const hooks = {...hooksObject(settings, file)};
	const changed: string[] = [];
	const entries: HookEntry[] = [
		...events.map(event => ({event, command, timeoutSeconds: timeouts[event] ?? HOOK_TIMEOUT_SECONDS})),
		...extra,
	];
	for (const {event, command: wanted, timeoutSeconds, matcher} of entries) {
		const groups = groupsOf(hooks, event, file);
		const role = roleOf(wanted);
		const isMine = (entry: unknown) => isOurs(entry) && roleOf((entry as Json)['command']) === role;
		const mine = groups.flatMap(entriesOf).filter(isMine);
		const isCurrent = (entry: unknown) => (entry as Json)['command'] === wanted && (entry as Json)['timeout'] === timeoutSeconds;
		if (mine.length > 0 && mine.every(isCurrent)) continue;
		if (mine.length > 0) {
			// Installed from another path (the package moved) or with another window: point our entries at this one.
			hooks[event] = groups.map(group =>
				entriesOf(group).some(isMine)
					? {
							...(group as Json),
							hooks: entriesOf(group).map(entry =>
								isMine(entry) ? {...(entry as Json), command: wanted, timeout: timeoutSeconds} : entry,
							),
						}
					: group,
			);
		} else {
			const entry = {type: 'command', command: wanted, timeout: timeoutSeconds};
			hooks[event] = [...groups, TOOL_EVENTS.has(event) ? {matcher: matcher ?? '*', hooks: [entry]} : {hooks: [entry]}];
		}
		changed.push(event);
	}
	if (changed.length > 0) writeAtomically(file, `${JSON.stringify({...settings, hooks}, null, 2)}\n`);
	return {file, what: 'hooks', events: changed, isChanged: changed.length > 0};
}

/** Removes exactly our entries; a group or event list left empty by that removal goes too. */
export function uninstallHooksFile(file: string): FileChange {
	const settings = readJsonFile(file);
	if (settings === null || settings['hooks'] === undefined) return {file, what: 'hooks', events: [], isChanged: false};
	const hooks = {...hooksObject(settings, file)};
	const removed: string[] = [];
	for (const event of Object.keys(hooks)) {
		const groups = groupsOf(hooks, event, file);
		if (!groups.some(group => entriesOf(group).some(isOurs))) continue;
		const kept = groups.flatMap(group => {
			const entries = entriesOf(group);
			if (!entries.some(isOurs)) return [group];
			const others = entries.filter(entry => !isOurs(entry));
			return others.length > 0 ? [{...(group as Json), hooks: others}] : [];
		});
		if (kept.length > 0) hooks[event] = kept;
		else delete hooks[event];
		removed.push(event);
	}
	if (removed.length === 0) return {file, what: 'hooks', events: [], isChanged: false};
	const next: Json = {...settings, hooks};
	if (Object.keys(hooks).length === 0) delete next['hooks'];
	writeAtomically(file, `${JSON.stringify(next, null, 2)}\n`);
	return {file, what: 'hooks', events: removed, isChanged: true};
}

/** Our commands in a settings file, per event (for `hooks status`: which kind, which script). */
export function installedCommands(file: string): {event: string; command: string}[] {
	const settings = readJsonFile(file);
	if (settings === null) return [];
	const hooks = hooksObject(settings, file);
	return Object.keys(hooks).flatMap(event => {
		// One per role: the lifecycle hook, and on SessionStart the handoff hook beside it.
		// The collision hook is told apart by its matcher group and never named here.
		const ours = groupsOf(hooks, event, file)
			.flatMap(entriesOf)
			.filter(entry => isOurs(entry) && roleOf((entry as Json)['command']) !== 'collision-hook');
		const statusRole = (command: unknown) => (typeof command === 'string' && HANDOFF_HOOK.test(command) ? 'handoff' : 'other');
		const byRole = new Map(ours.map(entry => [statusRole((entry as Json)['command']), entry] as const));
		return [...byRole.values()].flatMap(entry => (isRecord(entry) ? [{event, command: String(entry['command'])}] : []));
	});
}

/** The top level of a TOML file ends at its first `[table]` or `[[array]]` header. */
function topLevelEnd(lines: readonly string[]): number {
	const index = lines.findIndex(line => /^\s*\[/.test(line));
	return index < 0 ? lines.length : index;
}

/** The top-level `notify = ...` line of a config.toml, if any (only the top level counts: tables have their own keys). */
export function notifySetting(text: string): {line: number; value: string} | null {
	const lines = text.split('\n');
	const end = topLevelEnd(lines);
	for (let index = 0; index < end; index += 1) {
		const match = (lines[index] ?? '').match(/^\s*notify\s*=\s*(.*)$/);
		if (match) return {line: index, value: match[1] ?? ''};
	}
	return null;
}

function tomlArray(words: readonly string[]): string {
	// JSON string escapes are valid TOML basic-string escapes.
	return `[${words.map(word => JSON.stringify(word)).join(', ')}]`;
}

/**
 * Sets Codex's `notify` program in config.toml where none is set: the line (with a comment naming
 * us) goes at the end of the top level, before the first table header. No TOML library is used;
 * only that one top-level key is read or written.
 */
export function installNotify(file: string, hookArgs: readonly string[]): FileChange & {existing: string | null} {
	const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
	const current = notifySetting(text);
	const wanted = `notify = ${tomlArray([...hookArgs, '--notify'])}`;
	if (current && OUR_COMMAND.test(current.value.replace(/["',[\]]/g, ' '))) {
		const lines = text.split('\n');
		if (lines[current.line] === wanted) return {file, what: 'notify', events: [], isChanged: false, existing: null};
		// Ours, from another path or of the other kind (spool or direct): pointed at this one in place.
		lines[current.line] = wanted;
		writeAtomically(file, lines.join('\n'));
		return {file, what: 'notify', events: ['notify'], isChanged: true, existing: null};
	}
	if (current) return {file, what: 'notify', events: [], isChanged: false, existing: current.value.trim()};
	const lines = text.length > 0 ? text.split('\n') : [];
	let end = topLevelEnd(lines);
	while (end > 0 && (lines[end - 1] ?? '').trim() === '') end -= 1;
	// Exactly two lines and no spacing of our own, so uninstall can give back the file byte for byte.
	const added = [NOTIFY_COMMENT, wanted];
	const next = [...lines.slice(0, end), ...added, ...lines.slice(end)].join('\n');
	writeAtomically(file, text.length === 0 ? `${next}\n` : next);
	return {file, what: 'notify', events: ['notify'], isChanged: true, existing: null};
}

/** Removes our `notify` line and its comment, and nothing else. */
export function uninstallNotify(file: string): FileChange {
	if (!existsSync(file)) return {file, what: 'notify', events: [], isChanged: false};
	const text = readFileSync(file, 'utf8');
	const current = notifySetting(text);
	if (!current || !OUR_COMMAND.test(current.value.replace(/["',[\]]/g, ' '))) {
		return {file, what: 'notify', events: [], isChanged: false};
	}
	const lines = text.split('\n');
	const from = lines[current.line - 1] === NOTIFY_COMMENT ? current.line - 1 : current.line;
	lines.splice(from, current.line - from + 1);
	writeAtomically(file, lines.join('\n'));
	return {file, what: 'notify', events: ['notify'], isChanged: true};
}

/** Whether config.toml's notify is ours (and of which kind), someone else's, or unset. */
export function notifyStatus(file: string): HookKind | 'other' | 'unset' {
	if (!existsSync(file)) return 'unset';
	const current = notifySetting(readFileSync(file, 'utf8'));
	if (!current) return 'unset';
	const words = current.value.replace(/["',[\]]/g, ' ');
	return OUR_COMMAND.test(words) ? hookKind(words) : 'other';
}
