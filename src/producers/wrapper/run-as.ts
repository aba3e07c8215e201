import {readFileSync, statSync} from 'node:fs';
import {dirname} from 'node:path';

// The strong mode (docs/security.md, "The strong mode"): `controlroom run --user NAME` runs the
// agent as another OS user. The wrapper stays with the person's user and keeps the ledger; the
// agent's user can neither write the ledger nor open it, so nothing it starts (a detached tmux,
// `at`, a copy of controlroom) can answer a question, whatever its process tree or terminal.

/** The OS user an agent runs as. */
export type RunAsUser = {readonly name: string; readonly uid: number; readonly gid: number; readonly home: string};

/** NAME's entry in /etc/passwd (name:x:uid:gid:gecos:home:shell), or null when there is none. */
export function lookupUser(name: string, passwd = '/etc/passwd'): RunAsUser | null {
	let text: string;
	try {
		text = readFileSync(passwd, 'utf8');
	} catch {
		return null;
	}
	for (const line of text.split('\n')) {
		const fields = line.split(':');
		if (fields[0] !== name || fields.length < 7) continue;
		const uid = Number(fields[2]);
		const gid = Number(fields[3]);
		if (!Number.isInteger(uid) || !Number.isInteger(gid)) return null;
		return {name, uid, gid, home: fields[5] ?? '/'};
	}
	return null;
}

const GROUP_OR_OTHER_WRITE = 0o022;

/** Why the ledger at `file` would not hold against `user`: each path the user could write, or none. */
function writableBy(user: RunAsUser, file: string): string[] {
	const problems: string[] = [];
	for (const path of [file, `${file}-wal`, `${file}-shm`, dirname(file)]) {
		let stat;
		try {
			stat = statSync(path);
		} catch {
			continue; // a -wal or -shm not made yet is made by the wrapper, with the ledger's mode
		}
		if (stat.uid === user.uid) problems.push(`${path} belongs to ${user.name}`);
		// A shared folder, even a sticky one like /tmp, would let the user make the -wal first and own it.
		else if ((stat.mode & GROUP_OR_OTHER_WRITE) !== 0)
			problems.push(`${path} is writable by others (mode ${(stat.mode & 0o7777).toString(8)})`);
	}
	return problems;
}

/**
 * Why `run --user NAME` cannot hold here, in one line, or null when it can: the wrapper must be
 * able to switch user (root), NAME must be another user than the wrapper's, and the ledger must
 * be one NAME cannot write.
 */
export function runAsProblem(user: RunAsUser, ledgerFile: string, myUid: number): string | null {
	const problem = runAsUserProblem(user, myUid);
	if (problem !== null) return problem;
	const problems = writableBy(user, ledgerFile);
	return problems.length > 0 ? `the ledger would not hold against ${user.name}: ${problems.join('; ')}` : null;
}

/** What is wrong with the user alone, before any ledger is opened (a refused run makes no ledger). */
export function runAsUserProblem(user: RunAsUser, myUid: number): string | null {
	if (user.uid === myUid) return `${user.name} is the user controlroom runs as: --user names another OS user, for the agent`;
	if (myUid !== 0)
		return `running the agent as ${user.name} needs the wrapper to start as root (it switches to ${user.name} for the child only)`;
	if (user.uid === 0) return `--user root would give the agent everything the person has`;
	return null;
}
