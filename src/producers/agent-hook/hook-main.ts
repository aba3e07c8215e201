import {ledgerPath} from '../../ledger/paths.ts';
import {AGENT_SOURCES, type AgentSource} from '../../ledger/payload-schema.ts';
import {readAncestors} from './hook-ancestors.ts';
import {MAX_HOOK_INPUT_BYTES, recordHook, type HookOutcome} from './hook-record.ts';
import {readHookStdin} from './hook-stdin.ts';

/** The hook's whole budget, Node's own start included (docs/hooks.md, its opening paragraph). */
export const HOOK_BUDGET_MS = 150;
/** Budget for the work itself when `main` runs again in a process that started long ago. */
const WARM_WORK_BUDGET_MS = 100;
/** The hook's own flags; anything else is ignored, since the hook must never fail its agent. */
export type HookArgs = {
	readonly agent?: AgentSource;
	/** Codex's notify JSON (the last argument after --notify), or '' when --notify had none. */
	readonly notify?: string;
	readonly ledger?: string;
};

/** Parses `[--agent claude|codex] [--ledger PATH] [--notify [JSON]]` without ever throwing. */
export function parseHookArgs(argv: readonly string[]): HookArgs {
	let agent: AgentSource | undefined;
	let notify: string | undefined;
	let ledger: string | undefined;
	for (let index = 0; index < argv.length; index += 1) {
		const arg = argv[index] ?? '';
		const [flag, inline] =
			arg.startsWith('--') && arg.includes('=')
				? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
				: [arg, undefined];
		if (flag === '--agent') {
			const value = inline ?? argv[++index];
			if ((AGENT_SOURCES as readonly string[]).includes(value ?? '')) agent = value as AgentSource;
		} else if (flag === '--ledger') {
			ledger = inline ?? argv[++index];
		} else if (flag === '--notify') {
			// Codex appends the JSON as the very last argument.
			notify = inline ?? (index < argv.length - 1 ? (argv.at(-1) ?? '') : '');
			if (inline === undefined) break;
		}
	}
	return {...(agent ? {agent} : {}), ...(notify !== undefined ? {notify} : {}), ...(ledger ? {ledger} : {})};
}

/** Milliseconds since this process started; cheaper than perf_hooks, which the hook never loads. */
export function sinceProcessStart(): number {
	return process.uptime() * 1000;
}

function pidFromEnv(env: NodeJS.ProcessEnv): number | null {
	const value = Number(env['CLAUDE_PID']);
	return Number.isInteger(value) && value > 0 ? value : null;
}

/** CLAUDE_CONFIG_DIR as the agent has it: the folder its transcripts are under (docs/hooks.md). */
function configDirFromEnv(env: NodeJS.ProcessEnv): string | null {
	const value = env['CLAUDE_CONFIG_DIR'];
	return value ? value : null;
}

/** CONTROLROOM_TASK_ID, set by `controlroom run` for its agent (and so for the agent's hooks). */
function wrapperTaskFromEnv(env: NodeJS.ProcessEnv): string | null {
	const value = env['CONTROLROOM_TASK_ID']?.trim();
	return value ? value : null;
}

/** When the hook's optional work must stop: 150 ms after process start, or 100 ms from now in a warm process. */
function deadlineFrom(start: number): number {
	return start < HOOK_BUDGET_MS ? HOOK_BUDGET_MS - 10 : start + WARM_WORK_BUDGET_MS;
}

/** Records one hook input given as text: the part of `main` after stdin, for in-process callers. */
export function handleHookInput(
	args: HookArgs,
	stdinText: string | Uint8Array,
	env: NodeJS.ProcessEnv = process.env,
	start = sinceProcessStart(),
): HookOutcome {
	const isNotify = args.notify !== undefined;
	return recordHook({
		text: isNotify ? (args.notify ?? '') : stdinText,
		origin: isNotify ? 'notify' : 'stdin',
		...(args.agent ? {agent: args.agent} : {}),
		ledgerFile: ledgerPath(args.ledger, env),
		now: Date.now(),
		pid: pidFromEnv(env),
		wrapperTaskId: wrapperTaskFromEnv(env),
		configDir: configDirFromEnv(env),
		ancestors: readAncestors(),
		tmux: env['TMUX'] ?? null,
		tmuxPane: env['TMUX_PANE'] ?? null,
		deadline: deadlineFrom(start),
	});
}

/**
 * `controlroom hook [--agent claude|codex] [--notify JSON]`: records one agent event. Always
 * returns 0 and never writes to stdout, which the agent would read into its context.
 */
export async function main(argv: readonly string[]): Promise<number> {
	const start = sinceProcessStart();
	try {
		const args = parseHookArgs(argv);
		// Codex's notify passes its JSON in argv and gives no stdin: do not wait for one.
		// Bytes, not text: the edge checks they are UTF-8 rather than letting a decoder patch them.
		const stdin = args.notify === undefined ? await readHookStdin(MAX_HOOK_INPUT_BYTES) : '';
		const outcome = handleHookInput(args, stdin, process.env, start);
		if (process.env['CONTROLROOM_DEBUG']) {
			// How to verify the hook's cost on a real machine (docs/hooks.md); stderr only, never stdout.
			const end = sinceProcessStart();
			const rejected = outcome.rejected === null ? '' : `, rejected (${outcome.rejected})`;
			process.stderr.write(
				`controlroom hook: ${outcome.recordedIn}${rejected}, ${(end - start).toFixed(1)} ms in the hook, ${end.toFixed(1)} ms since process start\n`,
			);
		}
	} catch (error) {
		try {
			process.stderr.write(`controlroom hook: ${(error as Error).message}\n`);
		} catch {
			// stderr is gone too: exit 0 regardless, the agent must not notice.
		}
	}
	return 0;
}
