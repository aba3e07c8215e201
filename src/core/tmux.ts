/**
 * Where an agent runs in tmux (docs/tmux.md): read from the `TMUX` and `TMUX_PANE` variables its
 * hooks and wrapper inherit. The pane id (`%N`) is the address: tmux never reuses or changes it
 * while the server lives, also when the pane is moved to another window or session, so the window
 * and session are looked up from it when jumping, not trusted from when it started.
 */
export type TmuxPane = {
	/** The server's socket path (the first field of `TMUX`). */
	readonly socket: string;
	/** The server's PID (the second field): a socket reused by a new server is another server. */
	readonly serverPid: number | null;
	/** The session the agent started in, as tmux's session id (`$N`, from the third field). */
	readonly session: string | null;
	/** The pane id, `%N`. */
	readonly pane: string;
};

/** Longer than any socket path a kernel takes (sun_path is 108 bytes): not a socket. */
const MAX_SOCKET_CHARS = 1024;
const PANE_ID = /^%\d{1,9}$/;

/**
 * The tmux pane from `TMUX` ("socket,pid,session") and `TMUX_PANE` ("%N"), or null when either is
 * missing or malformed (not in tmux, or a value that is not tmux's). The socket path may itself
 * hold commas, so the two numeric fields are taken from the right.
 */
export function tmuxPaneFromEnv(tmux: string | null | undefined, pane: string | null | undefined): TmuxPane | null {
	if (!tmux || !pane || !PANE_ID.test(pane)) return null;
	const match = /^(.+),(\d{1,10}),(-?\d{1,10})$/.exec(tmux);
	if (!match) return null;
	const [, socket = '', pid = '', session = ''] = match;
	// A socket is an absolute path without control characters; anything else did not come from tmux.
	// eslint-disable-next-line no-control-regex -- control characters are what is refused
	if (!socket.startsWith('/') || socket.length > MAX_SOCKET_CHARS || /[\u0000-\u001f\u007f]/.test(socket)) return null;
	const serverPid = Number(pid);
	return {
		socket,
		serverPid: serverPid > 0 ? serverPid : null,
		session: Number(session) >= 0 ? `$${session}` : null,
		pane,
	};
}

/** A recorded pane as an event stores it (loose JSON): checked again, since a ledger is input. */
export function tmuxPaneFromData(data: unknown): TmuxPane | null {
	if (!data || typeof data !== 'object') return null;
	const record = data as Record<string, unknown>;
	const {socket, pane, serverPid, session} = record;
	if (typeof socket !== 'string' || typeof pane !== 'string' || !PANE_ID.test(pane) || !socket.startsWith('/')) return null;
	return {
		socket,
		pane,
		serverPid: typeof serverPid === 'number' ? serverPid : null,
		session: typeof session === 'string' ? session : null,
	};
}
