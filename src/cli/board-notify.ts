import {spawn} from 'node:child_process';
import {accessSync, constants} from 'node:fs';
import {delimiter, join} from 'node:path';
import {
	admitNotification,
	desktopText,
	NO_NOTIFICATIONS,
	osc777,
	osc9,
	type NeedsYouNotification,
	type RateState,
} from '../core/notify.ts';

/** How a desktop notification is sent (docs/tmux.md, "Notifications"). */
export const DESKTOP_NOTIFY = ['auto', 'osc9', 'osc777', 'notify-send', 'off'] as const;
export type DesktopNotify = (typeof DESKTOP_NOTIFY)[number];

export type NotifierOptions = {
	/** A shell command that gets each notification as one JSON line on stdin. */
	readonly command?: string;
	readonly desktop: DesktopNotify;
	readonly env?: NodeJS.ProcessEnv;
	/** Writes an escape sequence beside the board's frames (stdout). */
	readonly write: (text: string) => void;
	readonly now?: () => number;
};

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
	for (const dir of (env['PATH'] ?? '').split(delimiter)) {
		if (!dir) continue;
		const file = join(dir, name);
		try {
			accessSync(file, constants.X_OK);
			return file;
		} catch {
			// Not here.
		}
	}
	return null;
}

/** `auto`: notify-send where there is one and a desktop to show it on, else OSC 9. */
function resolveDesktop(desktop: DesktopNotify, env: NodeJS.ProcessEnv): Exclude<DesktopNotify, 'auto'> {
	if (desktop !== 'auto') return desktop;
	const hasDesktop = Boolean(env['DISPLAY'] || env['WAYLAND_DISPLAY']);
	return hasDesktop && onPath('notify-send', env) ? 'notify-send' : 'osc9';
}

/** Runs `command` with one line on stdin; its output and failure are its own (stdio ignored, never awaited). */
function runDetached(file: string, args: readonly string[], input: string | null, env: NodeJS.ProcessEnv): void {
	try {
		const child = spawn(file, args, {stdio: [input === null ? 'ignore' : 'pipe', 'ignore', 'ignore'], env});
		child.on('error', () => undefined);
		if (input !== null && child.stdin) {
			child.stdin.on('error', () => undefined);
			child.stdin.end(input);
		}
		child.unref();
	} catch {
		// A notification never takes the board down.
	}
}

/**
 * The board's notifier: for each entry new to Needs you, within the rate limit, one JSON line to
 * `--notify-command` and one desktop notification (OSC 9/777 through tmux, or notify-send).
 */
export function createNotifier(options: NotifierOptions): (entries: readonly Omit<NeedsYouNotification, 'suppressed'>[]) => void {
	const env = options.env ?? process.env;
	const desktop = resolveDesktop(options.desktop, env);
	const isInTmux = Boolean(env['TMUX']);
	const now = options.now ?? Date.now;
	let rate: RateState = NO_NOTIFICATIONS;
	return entries => {
		for (const entry of entries) {
			const suppressed = rate.suppressed;
			const admitted = admitNotification(rate, now());
			rate = admitted.state;
			if (!admitted.isAllowed) continue;
			const notification: NeedsYouNotification = {...entry, suppressed};
			if (options.command) runDetached('/bin/sh', ['-c', options.command], `${JSON.stringify(notification)}\n`, env);
			const text = desktopText(notification);
			if (desktop === 'osc9') options.write(osc9(`controlroom: ${text}`, isInTmux));
			else if (desktop === 'osc777') options.write(osc777('controlroom', text, isInTmux));
			else if (desktop === 'notify-send') runDetached('notify-send', ['--app-name=controlroom', 'controlroom', text], null, env);
		}
	};
}
