import {accessSync, constants, statSync} from 'node:fs';
import {delimiter, isAbsolute, join, resolve} from 'node:path';
import type {Writable} from 'node:stream';
import {execa} from 'execa';
import {isHeadless} from '../../core/claude-args.ts';
import {TASK_ID_ENV} from '../task-id-env.ts';
import type {WrapperOptions} from './options.ts';
import {agentTraceEnv} from './trace-env.ts';

/**
 * Whether the child's output passes through the wrapper (to be read, or to go to `--log`). An
 * interactive Claude Code owns the terminal itself: its hooks report what it does. A headless one
 * (`claude -p`) has no screen to own, and its last line is its result, with its own cost
 * (`total_cost_usd`), which the wrapper reads (docs/tree-and-cost.md, "Reported").
 */
export function isOutputPiped(options: Pick<WrapperOptions, 'agent' | 'args' | 'logFile' | 'stdout'>): boolean {
	return options.agent !== 'claude' || isHeadless(options.args) || options.logFile !== null || (options.stdout ?? null) !== null;
}

/**
 * The child starts as this shell, which waits for the wrapper's word on descriptor 3 before it
 * becomes the agent (`exec`, so the PID, the process group and the start time are the agent's
 * own). The wrapper records them first (docs/wrapper.md, "Recorded before exec"): a wrapper killed
 * before its word closes the pipe, the read ends without it, and the agent never starts.
 */
const GATE_SCRIPT = 'read -r word <&3 && [ "$word" = go ] && exec "$@" 3<&-; exit 127';

function startGated(options: WrapperOptions, taskId: string, isPiped: boolean) {
	return execa('/bin/sh', ['-c', GATE_SCRIPT, 'controlroom-run', options.command, ...options.args], {
		cwd: options.cwd,
		stdio: [
			options.stdinFile ? {file: options.stdinFile} : 'inherit',
			isPiped ? 'pipe' : 'inherit',
			isPiped ? 'pipe' : 'inherit',
			'pipe',
		],
		// Its own process group (node's detached = setsid), so a stop can signal the whole group.
		detached: true,
		cleanup: false,
		reject: false,
		buffer: false,
		// The strong mode: the child, and all it starts, is another OS user (docs/security.md).
		...(options.runAs ? {uid: options.runAs.uid, gid: options.runAs.gid} : {}),
		env: {
			...(options.runAs ? {HOME: options.runAs.home, USER: options.runAs.name, LOGNAME: options.runAs.name} : {}),
			...options.env,
			...(options.brief ? {CONTROLROOM_BRIEF: options.brief} : {}),
			...agentTraceEnv(options, taskId),
			[TASK_ID_ENV]: taskId,
		},
	});
}

/** What the wrapper holds of a spawned child: the process, and how to let it become the agent. */
export type GatedChild = {
	readonly process: ReturnType<typeof startGated>;
	/** Lets the child exec the agent, once its PID is recorded. */
	release(): void;
};

/**
 * Spawns the agent in its own process group, its task id in CONTROLROOM_TASK_ID, held before exec
 * until `release`; its PID is undefined when the spawn failed.
 */
export function spawnAgent(options: WrapperOptions, taskId: string, isPiped: boolean): GatedChild {
	const child = startGated(options, taskId, isPiped);
	const gate = child.stdio[3] as unknown as Writable | null;
	gate?.on('error', () => undefined);
	return {process: child, release: () => gate?.end('go\n')};
}

/** Why a spawn failed, once the failed child has settled. */
export async function spawnError(child: GatedChild): Promise<string> {
	const result = await child.process;
	return result.originalMessage || result.shortMessage || 'spawn failed';
}

function isExecutableFile(path: string): boolean {
	try {
		accessSync(path, constants.X_OK);
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/**
 * Why the command cannot be started, as a failed spawn would say (`spawn CMD ENOENT`), or null
 * when it can: found as execvp finds it (a path with a slash from the child's folder, else along
 * its PATH) and executable. Asked before the spawn, since the gate shell itself always starts.
 */
export function unstartable(command: string, cwd: string, path: string | undefined): string | null {
	if (command.includes('/')) {
		const file = isAbsolute(command) ? command : resolve(cwd, command);
		try {
			statSync(file);
		} catch {
			return `spawn ${command} ENOENT`;
		}
		return isExecutableFile(file) ? null : `spawn ${command} EACCES`;
	}
	const folders = (path ?? '').split(delimiter).map(folder => (folder === '' ? '.' : folder));
	return folders.some(folder => isExecutableFile(resolve(cwd, join(folder, command)))) ? null : `spawn ${command} ENOENT`;
}
