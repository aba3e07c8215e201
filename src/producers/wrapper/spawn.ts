import {execa} from 'execa';
import {TASK_ID_ENV} from '../task-id-env.ts';
import type {WrapperOptions} from './options.ts';

/**
 * Whether the child's output passes through the wrapper (to be read, or to go to `--log`). An
 * interactive Claude Code owns the terminal itself: its hooks report what it does.
 */
export function isOutputPiped(options: Pick<WrapperOptions, 'agent' | 'logFile' | 'stdout'>): boolean {
	return options.agent !== 'claude' || options.logFile !== null || (options.stdout ?? null) !== null;
}

/** Spawns the agent in its own process group, its task id in CONTROLROOM_TASK_ID; its PID is undefined when the spawn failed. */
export function spawnAgent(options: WrapperOptions, taskId: string, isPiped: boolean) {
	return execa(options.command, [...options.args], {
		cwd: options.cwd,
		stdin: options.stdinFile ? {file: options.stdinFile} : 'inherit',
		stdout: isPiped ? 'pipe' : 'inherit',
		stderr: isPiped ? 'pipe' : 'inherit',
		// Its own process group (node's detached = setsid), so a stop can signal the whole group.
		detached: true,
		cleanup: false,
		reject: false,
		buffer: false,
		env: {
			...options.env,
			...(options.brief ? {CONTROLROOM_BRIEF: options.brief} : {}),
			[TASK_ID_ENV]: taskId,
		},
	});
}

/** Why a spawn failed, once the failed child has settled. */
export async function spawnError(child: ReturnType<typeof spawnAgent>): Promise<string> {
	const result = await child;
	return result.originalMessage || result.shortMessage || 'spawn failed';
}
