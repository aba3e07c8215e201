import {readdirSync, readFileSync, readlinkSync, statSync} from 'node:fs';

// Which file a name holds, and where a file this process holds open is now. A ledger can be moved
// (`mv ledger.db moved.db`), deleted or replaced under a running process, and an open SQLite
// connection is never told: these are how controlroom finds out (docs/ledger.md, "A ledger moved,
// deleted or replaced under a running process"). Linux's /proc; elsewhere a moved ledger reads as
// deleted, and the holders of a WAL are unknown.

/** A file as the kernel knows it: device and inode. */
export type FileIdentity = {readonly dev: number; readonly ino: number};

const isGone = (error: unknown): boolean => {
	const code = (error as NodeJS.ErrnoException | null)?.code;
	return code === 'ENOENT' || code === 'ENOTDIR';
};

/** The identity of the file at `path` (a link is followed, as SQLite follows it), or null when nothing is there. */
export function identityAt(path: string): FileIdentity | null {
	try {
		const stat = statSync(path);
		return {dev: stat.dev, ino: stat.ino};
	} catch (error) {
		if (isGone(error)) return null;
		throw error;
	}
}

export const isSameFile = (a: FileIdentity | null, b: FileIdentity | null): boolean =>
	a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;

/** Where an open file is now: its path (as the kernel names it) and how many names it has (0: deleted). */
export type OpenFileWhereabouts = {readonly path: string; readonly links: number};

const SELF_FDS = '/proc/self/fd';

/**
 * Finds a file this process holds open by its identity, through /proc/self/fd, and says where it
 * is now: a rename moves the name the kernel reports, an unlink leaves it with no names. Null when
 * this process does not hold it, or there is no /proc.
 */
export function whereOpen(identity: FileIdentity): OpenFileWhereabouts | null {
	let fds: string[];
	try {
		fds = readdirSync(SELF_FDS);
	} catch {
		return null;
	}
	for (const fd of fds) {
		const link = `${SELF_FDS}/${fd}`;
		try {
			const stat = statSync(link);
			if (stat.dev !== identity.dev || stat.ino !== identity.ino) continue;
			const target = readlinkSync(link);
			return {path: stat.nlink === 0 ? target.replace(/ \(deleted\)$/, '') : target, links: stat.nlink};
		} catch {
			// Closed meanwhile (the descriptor of the listing itself, say).
		}
	}
	return null;
}

/** A process that holds a file open. */
export type Holder = {readonly pid: number; readonly name: string};

/**
 * The processes holding the file at `path` open (this one included), through /proc/PID/fd: every
 * process this user may look into. Empty when nothing is there, or there is no /proc.
 */
export function holdersOf(path: string): Holder[] {
	const identity = identityAt(path);
	if (identity === null) return [];
	let pids: string[];
	try {
		pids = readdirSync('/proc').filter(name => /^\d+$/.test(name));
	} catch {
		return [];
	}
	const holders: Holder[] = [];
	for (const pid of pids) {
		let fds: string[];
		try {
			fds = readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		const isHolding = fds.some(fd => {
			try {
				const stat = statSync(`/proc/${pid}/fd/${fd}`);
				return stat.dev === identity.dev && stat.ino === identity.ino;
			} catch {
				return false;
			}
		});
		if (!isHolding) continue;
		let name = '?';
		try {
			name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
		} catch {
			// Gone meanwhile: still named by its PID.
		}
		holders.push({pid: Number(pid), name});
	}
	return holders;
}

/** Whether this process holds the file at `path` open. */
export function isHeldHere(path: string): boolean {
	const identity = identityAt(path);
	return identity !== null && whereOpen(identity) !== null;
}
