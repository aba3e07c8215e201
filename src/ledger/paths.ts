import {homedir} from 'node:os';
import {dirname, join, resolve} from 'node:path';

/** `$CONTROLROOM_HOME`, else `$XDG_STATE_HOME/controlroom`, else `~/.local/state/controlroom`. */
export function controlroomHome(env: NodeJS.ProcessEnv = process.env): string {
	if (env['CONTROLROOM_HOME']) return resolve(env['CONTROLROOM_HOME']);
	if (env['XDG_STATE_HOME']) return join(resolve(env['XDG_STATE_HOME']), 'controlroom');
	return join(homedir(), '.local', 'state', 'controlroom');
}

/** The ledger file: `--ledger PATH` wins over the home. */
export function ledgerPath(override: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
	return override ? resolve(override) : join(controlroomHome(env), 'ledger.db');
}

/** Spool files live in `spool/` beside the ledger (so `$CONTROLROOM_HOME/spool` by default). */
export function spoolDir(ledgerFile: string): string {
	return join(dirname(ledgerFile), 'spool');
}
