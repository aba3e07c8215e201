import {execFileSync, spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {onEvent, waitFor, type Wakeup} from './wait-for.ts';

/** A tmux server of its own (one socket a test file), so tests never touch a user's sessions. */
export class Tmux {
	readonly socket = `cr-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	/** One read-only control-mode client a session: tmux tells it of every output in the pane. */
	private readonly listeners = new Map<string, {client: ChildProcess; attached: Promise<void>}>();

	/** Whether tmux is on this machine (CI installs it; .ci/run does). */
	static isAvailable(): boolean {
		return spawnSync('tmux', ['-V']).status === 0;
	}

	run(args: readonly string[]): string {
		return execFileSync('tmux', ['-L', this.socket, ...args], {encoding: 'utf8'});
	}

	/** Starts a detached session running a plain shell, `width`×`height`. */
	start(session: string, width: number, height: number, env: Record<string, string>): void {
		const exports = Object.entries(env).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
		// The test runner's NODE_ENV=test must not reach the binary: a user's shell does not have it.
		this.run([
			'new-session',
			'-d',
			'-s',
			session,
			'-x',
			String(width),
			'-y',
			String(height),
			`env -u NODE_ENV -u VITEST ${exports.join(' ')} PS1='$ ' sh`,
		]);
		this.listen(session);
	}

	/**
	 * Attaches a control-mode client (`tmux -C`, read-only; control clients leave the window's size
	 * alone) whose `%output` lines say the pane changed: waits look at the pane when it changes.
	 */
	private listen(session: string): void {
		const client = spawn('tmux', ['-L', this.socket, '-C', 'attach-session', '-r', '-t', session], {
			stdio: ['pipe', 'pipe', 'ignore'],
		});
		// Read it all the time (its lines are discarded between waits), so tmux never waits on it.
		client.stdout.resume();
		const attached = new Promise<void>((resolve, reject) => {
			let text = '';
			const onData = (chunk: Buffer): void => {
				text += chunk.toString();
				if (!text.includes('%session-changed')) return;
				client.stdout.removeListener('data', onData);
				resolve();
			};
			client.stdout.on('data', onData);
			client.once('exit', code => reject(new Error(`tmux control client for ${session} exited ${code} before attaching`)));
		});
		// Never an unhandled rejection: a wait on this session reports it.
		attached.catch(() => undefined);
		this.listeners.set(session, {client, attached});
	}

	/** Fires on every output tmux reports for the session's pane. */
	private paneOutput(session: string): Wakeup {
		const listener = this.listeners.get(session);
		if (!listener?.client.stdout) throw new Error(`tmux session ${session} was not started by this helper`);
		return onEvent(listener.client.stdout, 'data');
	}

	/** Types keys into the pane (tmux key names: Enter, Escape, Tab, Down ...). */
	send(session: string, ...keys: string[]): void {
		this.run(['send-keys', '-t', session, ...keys]);
	}

	/** Types literal text. */
	type(session: string, text: string): void {
		this.run(['send-keys', '-t', session, '-l', text]);
	}

	/** The command in the pane's foreground (e.g. `node` while the board runs, `sh` after). */
	foreground(session: string): string {
		return this.run(['display-message', '-p', '-t', session, '#{pane_current_command}']).trim();
	}

	/**
	 * Whether the program in the pane reads keys one by one: its terminal is in raw mode (no
	 * canonical line editing), which Ink turns on once the board's key handler is subscribed. Before
	 * that, a key would be held by the terminal's line editing (and echoed over the board).
	 */
	readsKeys(session: string): boolean {
		const tty = this.run(['display-message', '-p', '-t', session, '#{pane_tty}']).trim();
		const modes = spawnSync('stty', ['-a', '-F', tty], {encoding: 'utf8'}).stdout;
		return /(^|\s)-icanon(\s|$)/.test(modes);
	}

	capture(session: string): string {
		return this.run(['capture-pane', '-p', '-t', session]);
	}

	/**
	 * Waits until `predicate` holds for the pane, looking each time tmux reports output in the
	 * session; returns the pane and when it first held. `target` names another window of the
	 * session (`board:0`) than the current one.
	 */
	async waitFor(
		session: string,
		predicate: (pane: string) => boolean,
		timeoutMs = 8000,
		target = session,
	): Promise<{pane: string; at: number}> {
		await this.listeners.get(session)?.attached;
		let last = '';
		return waitFor(
			() => {
				last = this.capture(target);
				return predicate(last) && {pane: last, at: Date.now()};
			},
			{what: 'the tmux pane to match', timeoutMs, on: [this.paneOutput(session)], explain: () => last},
		);
	}

	kill(): void {
		spawnSync('tmux', ['-L', this.socket, 'kill-server']);
		for (const {client} of this.listeners.values()) client.kill();
		this.listeners.clear();
	}
}
