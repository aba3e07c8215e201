import type {Tmux} from '../helpers/tmux.ts';
import {CLAUDE_AT, type Box} from './box.ts';

/** The real TUI of Claude Code in a tmux pane of its own (under `script`), on the file's shared server; `args` are Claude's. */
export async function tui(tmux: Tmux, box: Box, name: string, port: number, args: readonly string[] = []): Promise<void> {
	const env: Record<string, string> = {};
	for (const key of ['PATH', 'REALCLIENTS', 'CONTROLROOM_HOME']) env[key] = String(box.env[key]);
	tmux.start(name, 120, 40, {...env, FAKE_ANTHROPIC_PORT: String(port), CLAUDE_TIMEOUT: '300'});
	tmux.type(name, `script -qfc '${[CLAUDE_AT, box.dir, ...args].join(' ')}' /dev/null`);
	tmux.send(name, 'Enter');
	await tmux.waitFor(name, () => tmux.readsKeys(name) && tmux.foreground(name) !== 'sh', 90_000);
}

/** Types a line into the TUI once it shows it whole (a burst of keys can be taken as a paste). */
export async function say(tmux: Tmux, name: string, text: string): Promise<void> {
	tmux.type(name, text);
	await tmux.waitFor(
		name,
		pane => pane.includes(`❯ ${text}`) || new RegExp(`❯\\s*${text.replace(/[/.*+?^${}()|[\]\\]/g, '\\$&')}`).test(pane),
		30_000,
	);
	tmux.send(name, 'Enter');
}
