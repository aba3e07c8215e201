import {execFileSync, spawnSync} from 'node:child_process';

/** A tmux server of its own (one socket a test file), so tests never touch a user's sessions. */
export class Tmux {
	readonly socket = `cr-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

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

	capture(session: string): string {
		return this.run(['capture-pane', '-p', '-t', session]);
	}

	/** Polls the pane until `predicate` holds; returns the pane and when it first held. */
	async waitFor(
		session: string,
		predicate: (pane: string) => boolean,
		timeoutMs = 8000,
		everyMs = 20,
	): Promise<{pane: string; at: number}> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const pane = this.capture(session);
			if (predicate(pane)) return {pane, at: Date.now()};
			if (Date.now() > deadline) throw new Error(`tmux pane never matched; last pane:\n${pane}\n(end of pane)`);
			await new Promise(resolve => setTimeout(resolve, everyMs));
		}
	}

	kill(): void {
		spawnSync('tmux', ['-L', this.socket, 'kill-server']);
	}
}
