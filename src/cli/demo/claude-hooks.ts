import {spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';

// How the demo's stand-in for Claude Code runs its hooks, as Claude Code 2.1.328 does
// (../shared/formats/FORMATS.md): the hooks of the user's settings file (where `hooks install`
// put controlroom's spool hook) and of `--settings` (where `controlroom run` puts its hold hook),
// each matching group's commands run by a shell with the payload as one line of JSON on stdin,
// and the session's process named in CLAUDE_PID. Nothing here knows what the hooks do.

type HookCommand = {readonly command: string; readonly timeoutSeconds: number};
type Group = {readonly matcher: string | null; readonly hooks: readonly HookCommand[]};
/** Every event's matcher groups, from both settings. */
export type HookTable = Readonly<Record<string, readonly Group[]>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

function groupsOf(settings: unknown): Record<string, Group[]> {
	const table: Record<string, Group[]> = {};
	const hooks = isRecord(settings) ? settings['hooks'] : undefined;
	if (!isRecord(hooks)) return table;
	for (const [event, groups] of Object.entries(hooks)) {
		if (!Array.isArray(groups)) continue;
		table[event] = groups.filter(isRecord).map(group => ({
			matcher: typeof group['matcher'] === 'string' ? group['matcher'] : null,
			hooks: (Array.isArray(group['hooks']) ? group['hooks'] : [])
				.filter(isRecord)
				.filter(hook => typeof hook['command'] === 'string')
				.map(hook => ({
					command: hook['command'] as string,
					timeoutSeconds: typeof hook['timeout'] === 'number' ? hook['timeout'] : 600,
				})),
		}));
	}
	return table;
}

/** The hooks Claude Code would run: `$CLAUDE_CONFIG_DIR/settings.json`'s, merged with `--settings` JSON's. */
export function loadHookTable(configDir: string, settingsFlag: string | null): HookTable {
	let user: unknown = {};
	try {
		user = JSON.parse(readFileSync(join(configDir, 'settings.json'), 'utf8'));
	} catch {
		// No settings file: no user hooks.
	}
	const merged = groupsOf(user);
	if (settingsFlag !== null) {
		for (const [event, groups] of Object.entries(groupsOf(JSON.parse(settingsFlag) as unknown)))
			merged[event] = [...(merged[event] ?? []), ...groups];
	}
	return merged;
}

/** Whether a group's matcher takes the tool: none, `*` and `''` take every tool; else a name or `A|B`. */
function matches(matcher: string | null, tool: string | null): boolean {
	if (matcher === null || matcher === '' || matcher === '*' || tool === null) return true;
	return matcher.split('|').includes(tool);
}

/**
 * Runs an event's hooks with `payload`, one after another, and returns what each printed (Claude
 * reads a decision from PreToolUse's stdout). `env` is the hook's environment beyond the process's.
 */
export function runHooks(table: HookTable, payload: Record<string, unknown>, env: Readonly<Record<string, string>>): string[] {
	const event = String(payload['hook_event_name']);
	const tool = typeof payload['tool_name'] === 'string' ? payload['tool_name'] : null;
	const outputs: string[] = [];
	for (const group of table[event] ?? []) {
		if (!matches(group.matcher, tool)) continue;
		for (const hook of group.hooks) {
			const run = spawnSync('/bin/sh', ['-c', hook.command], {
				input: `${JSON.stringify(payload)}\n`,
				env: {...process.env, ...env},
				encoding: 'utf8',
				timeout: hook.timeoutSeconds * 1000,
				stdio: ['pipe', 'pipe', 'ignore'],
			});
			outputs.push(run.stdout ?? '');
		}
	}
	return outputs;
}

/** Whether a PreToolUse hook's answer defers the call (`permissionDecision: "defer"`, honoured only by `claude -p`). */
export function defers(outputs: readonly string[]): boolean {
	return outputs.some(output => {
		try {
			const answer = JSON.parse(output) as {hookSpecificOutput?: {permissionDecision?: unknown}};
			return answer.hookSpecificOutput?.permissionDecision === 'defer';
		} catch {
			return false;
		}
	});
}
