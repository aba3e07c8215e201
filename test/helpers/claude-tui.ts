import type {SnapshotDecision} from '../../src/core/decisions/view.ts';
import {BIN} from './cli.ts';
import {realClientScript, type RealClientBox} from './realclients.ts';
import type {Tmux} from './tmux.ts';

// The real Claude Code TUI and the board side by side in tmux, for the decision queue's tests
// (docs/decisions.md): the panes' environment, starting each, and the queue as snapshot reads it.

const CLAUDE = realClientScript('claude-offline.sh');

/** What a pane needs of the box: the harness, the ledger, the scenario, and the model's script file. */
export function paneEnv(box: RealClientBox, script: string): Record<string, string> {
	const env: Record<string, string> = {SCRIPT_FILE: script};
	for (const key of ['PATH', 'REALCLIENTS', 'CONTROLROOM_HOME', 'SCENARIO', 'CLAUDE_TIMEOUT']) env[key] = String(box.env[key]);
	return env;
}

/** Starts `controlroom board` in a new session and waits for its first frame. */
export async function startBoard(tmux: Tmux, session: string, env: Record<string, string>): Promise<void> {
	tmux.start(session, 170, 45, env);
	tmux.type(session, `node ${BIN} board`);
	tmux.send(session, 'Enter');
	await tmux.waitFor(session, pane => pane.includes('NEEDS YOU'), 20_000);
}

/** Starts the Claude TUI (`--permission-mode default`) in WORKDIR `dir`, and waits for its prompt box. */
export async function startClaudeTui(tmux: Tmux, session: string, env: Record<string, string>, dir: string): Promise<void> {
	tmux.start(session, 170, 45, env);
	tmux.type(session, `script -qfc '${CLAUDE} ${dir} --permission-mode default' /dev/null`);
	tmux.send(session, 'Enter');
	// The TUI's own prompt box, drawn: keys typed before it are lost to the terminal's echo
	await tmux.waitFor(session, pane => tmux.foreground(session) !== 'sh' && /for shortcuts/.test(pane), 90_000);
}

/** Types a prompt into the TUI and waits for the permission dialog showing `command`. */
export async function promptUntilDialog(tmux: Tmux, session: string, prompt: string, command: string): Promise<void> {
	tmux.type(session, prompt);
	const typed = new RegExp(`❯\\s*${prompt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
	await tmux.waitFor(session, pane => typed.test(pane), 30_000);
	tmux.send(session, 'Enter');
	await tmux.waitFor(session, pane => pane.includes('Do you want to proceed?') && pane.includes(command), 60_000);
}

/** Every question in the ledger, as `snapshot --json --all` lists them. */
export function decisionsOf(box: RealClientBox): SnapshotDecision[] {
	return (JSON.parse(box.cli(['snapshot', '--json', '--all']).stdout) as {decisions: SnapshotDecision[]}).decisions;
}

/** Whether a process runs (signal 0). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}
