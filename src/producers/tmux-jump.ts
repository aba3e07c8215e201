import {spawnSync} from 'node:child_process';
import type {Task} from '../core/task.ts';
import {BACK_OPTION, jumpRefusal, personsClient, tmuxPaneFromEnv, type TmuxClient, type TmuxPane} from '../core/tmux.ts';

/** What a jump came to, in one line. */
export type JumpOutcome = {readonly isJumped: boolean; readonly message: string};

/** How long one tmux call may take: the server answers in milliseconds, a hung one must not hang us. */
const TMUX_TIMEOUT_MS = 5000;
const FIELD = '\t';

type TmuxAnswer = {readonly ok: true; readonly lines: string[]} | {readonly ok: false; readonly why: string};

/** Runs one tmux command line (commands joined by `;`) on the server at `socket`. */
function tmux(socket: string, args: readonly string[], env: NodeJS.ProcessEnv): TmuxAnswer {
	const result = spawnSync('tmux', ['-S', socket, ...args], {encoding: 'utf8', timeout: TMUX_TIMEOUT_MS, env});
	if (result.error) {
		const code = (result.error as NodeJS.ErrnoException).code;
		return {ok: false, why: code === 'ENOENT' ? 'tmux is not installed here' : result.error.message};
	}
	if (result.status !== 0) return {ok: false, why: (result.stderr.trim().split('\n')[0] ?? '') || `tmux exited ${result.status}`};
	return {ok: true, lines: result.stdout.split('\n').filter(line => line.length > 0)};
}

function clientsFrom(lines: readonly string[]): TmuxClient[] {
	return lines.flatMap(line => {
		const [activity = '', name = '', session = '', readOnly = ''] = line.split(FIELD);
		return name ? [{name, session, activity: Number(activity) || 0, isReadOnly: readOnly === '1'}] : [];
	});
}

/**
 * Takes the person's tmux client to the task's pane (docs/tmux.md): the pane is looked up by its
 * id, which follows it when it is moved; the window and pane are selected, and the client switched
 * when the pane is in another session. The caller's pane is kept in the server's `@controlroom-back`
 * option for the return binding. Refused, in one line, when there is no pane to go to.
 */
export function jumpToPane(taskId: string, pane: TmuxPane | null, env: NodeJS.ProcessEnv = process.env): JumpOutcome {
	const here = tmuxPaneFromEnv(env['TMUX'], env['TMUX_PANE']);
	const refusal = jumpRefusal(taskId, pane, here);
	if (refusal !== null || pane === null || here === null) return {isJumped: false, message: refusal ?? 'not in tmux'};
	const looked = tmux(
		pane.socket,
		[
			'display-message',
			'-p',
			'-t',
			pane.pane,
			['#{pid}', '#{session_id}', '#{session_name}', '#{window_index}'].join(FIELD),
			';',
			'display-message',
			'-p',
			'-t',
			here.pane,
			'#{session_id}',
			';',
			'list-clients',
			'-F',
			['#{client_activity}', '#{client_name}', '#{session_id}', '#{client_readonly}'].join(FIELD),
		],
		env,
	);
	if (!looked.ok) {
		const isGone = /can't find|no server running|error connecting|No such file/i.test(looked.why);
		return {isJumped: false, message: isGone ? `${taskId}'s pane ${pane.pane} is gone (${looked.why})` : `tmux: ${looked.why}`};
	}
	const [target = '', hereSession = '', ...clientLines] = looked.lines;
	const [serverPid = '', session = '', sessionName = '', window = ''] = target.split(FIELD);
	if (pane.serverPid !== null && Number(serverPid) !== pane.serverPid)
		return {isJumped: false, message: `${taskId}'s pane ${pane.pane} is gone: its tmux server has restarted since`};
	const client = personsClient(clientsFrom(clientLines), hereSession);
	if (client === null) return {isJumped: false, message: `no tmux client shows this pane (${here.pane}): nobody to take there`};
	const move =
		client.session === session
			? ['select-window', '-t', pane.pane, ';', 'select-pane', '-t', pane.pane]
			: ['switch-client', '-c', client.name, '-t', pane.pane];
	const moved = tmux(pane.socket, ['set-option', '-g', BACK_OPTION, here.pane, ';', ...move], env);
	if (!moved.ok) return {isJumped: false, message: `tmux: ${moved.why}`};
	return {isJumped: true, message: `jumped to ${taskId}: pane ${pane.pane} in ${sessionName}:${window}`};
}

/** The jump for a task as the ledger has it; a task another host runs is refused (its panes are not here). */
export function jumpToTask(
	taskId: string,
	task: Pick<Task, 'tmux'> | undefined,
	options: {readonly host?: string | null; readonly thisHost?: string; readonly env?: NodeJS.ProcessEnv} = {},
): JumpOutcome {
	if (task === undefined) return {isJumped: false, message: `no task '${taskId}'`};
	if (options.host && options.thisHost && options.host !== options.thisHost)
		return {isJumped: false, message: `${taskId} runs on ${options.host}, not on this host (${options.thisHost})`};
	return jumpToPane(taskId, task.tmux ?? null, options.env);
}
