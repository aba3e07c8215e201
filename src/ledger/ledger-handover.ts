import {unlinkSync} from 'node:fs';
import {AgentFileError, readAgentText, replaceOwnFile} from './agent-files.ts';
import {holdersOf, type Holder} from './file-identity.ts';

// When a ledger is moved (`mv ledger.db moved.db`) under running processes, each of them still
// holds it by its old name, and SQLite removes a WAL and shared memory by the name they were opened
// by when the last connection to a database closes. So a new ledger must not be made under the old
// name while any of those old-name connections is left: the last one's close would remove the new
// ledger's WAL. Each process that notices the move hands its connection over (open-ledger.ts) and
// notes here that it did; a new ledger waits until every process that holds the moved ledger has
// (docs/ledger.md, "A ledger moved, deleted or replaced under a running process").

/** The note beside the old name: where the ledger went, and which processes have let go of its old name. */
type Handover = {readonly movedTo: string; readonly handedOver: readonly number[]};

const noteOf = (name: string): string => `${name}.handover`;

/** The largest note read: a path and some PIDs. */
const MAX_NOTE_BYTES = 64 * 1024;

function readNote(name: string): Handover | null {
	let text: string;
	try {
		text = readAgentText(noteOf(name), MAX_NOTE_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) return null;
		throw error;
	}
	try {
		const value = JSON.parse(text) as Partial<Handover>;
		if (typeof value.movedTo !== 'string' || !Array.isArray(value.handedOver)) return null;
		return {movedTo: value.movedTo, handedOver: value.handedOver.filter(pid => Number.isInteger(pid))};
	} catch {
		return null;
	}
}

/** Notes that this process let go of the ledger's old `name`, moved to `movedTo`. Called under the creation lock. */
export function noteHandover(name: string, movedTo: string): void {
	const note = readNote(name);
	const handedOver = note?.movedTo === movedTo ? note.handedOver : [];
	replaceOwnFile(noteOf(name), JSON.stringify({movedTo, handedOver: [...new Set([...handedOver, process.pid])]}));
}

/**
 * The processes that hold a ledger moved away from `name` and have not let go of its old name
 * (nor ended): while there are any, no new ledger may be made at `name`. Called under the creation lock.
 */
export function oldNameHolders(name: string): Holder[] {
	const note = readNote(name);
	if (note === null) return [];
	const handedOver = new Set(note.handedOver);
	const holders = [...holdersOf(`${note.movedTo}-wal`), ...holdersOf(`${note.movedTo}-shm`)];
	return [...new Map(holders.filter(holder => !handedOver.has(holder.pid)).map(holder => [holder.pid, holder])).values()];
}

/** Removes the note once a new ledger is made at `name` (or nothing of the moved one is held). */
export function clearHandover(name: string): void {
	try {
		unlinkSync(noteOf(name));
	} catch {
		// No note: nothing to clear.
	}
}
