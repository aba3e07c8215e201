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

/** The tmux user option that keeps the pane a jump came from, for the return binding (docs/tmux.md). */
export const BACK_OPTION = '@controlroom-back';

/**
 * Why a jump to a task's pane cannot be tried from `here` (the caller's own pane), or null when
 * tmux must be asked: no pane recorded, the caller not in tmux, another server (another socket,
 * or the same socket served by a new server, whose pane ids start again).
 */
export function jumpRefusal(taskId: string, pane: TmuxPane | null, here: TmuxPane | null): string | null {
	if (pane === null) return `${taskId} does not run in tmux: its hooks and wrapper saw no TMUX`;
	if (here === null)
		return `not inside tmux: run it from a pane of the server ${pane.socket} to reach ${taskId}'s pane ${pane.pane}`;
	if (pane.socket !== here.socket) return `${taskId} runs on another tmux server (${pane.socket}), not this one (${here.socket})`;
	if (pane.serverPid !== null && here.serverPid !== null && pane.serverPid !== here.serverPid)
		return `${taskId}'s pane ${pane.pane} is gone: its tmux server has restarted since`;
	return null;
}

/** A client of the server: its name, session, last activity, and whether it may only watch. */
export type TmuxClient = {
	readonly name: string;
	readonly session: string;
	readonly activity: number;
	readonly isReadOnly: boolean;
};

/**
 * The person's client: of those showing `session` (the caller's pane's), the one most recently
 * active, as tmux itself picks a "current" client. A read-only client cannot have typed the key or
 * the command, so it is never the one taken.
 */
export function personsClient(clients: readonly TmuxClient[], session: string): TmuxClient | null {
	let best: TmuxClient | null = null;
	for (const client of clients) {
		if (client.session !== session || client.isReadOnly) continue;
		if (best === null || client.activity > best.activity) best = client;
	}
	return best;
}
