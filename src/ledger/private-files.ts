import {mkdirSync} from 'node:fs';

// Prompts, tool output and file paths are in the ledger and the spool: nothing controlroom creates
// may be readable by other users of the machine, whatever the umask (docs/ledger.md, "Privacy").

/** Folders controlroom creates ($CONTROLROOM_HOME, spool/, locks/): the owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Files controlroom creates (the ledger, its WAL and shared memory, spool and lock files): the owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates a folder (and any missing parents) readable by its owner only. A folder that already
 * exists is left as it is: it may be the user's own (a `--ledger` in their home), and `doctor`
 * reports one that others can read.
 */
export function makePrivateDir(dir: string): void {
	mkdirSync(dir, {recursive: true, mode: PRIVATE_DIR_MODE});
}
