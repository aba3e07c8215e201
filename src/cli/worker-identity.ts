import {CliError, USAGE_EXIT} from './errors.ts';

/**
 * The worker a claim command acts as: `--as NAME`, else $CONTROLROOM_WORKER, else null (a person at
 * a terminal). A blank name is refused rather than read as "nobody".
 */
export function workerIdentity(command: string, flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
	if (flag !== undefined) {
		if (flag.trim() === '') throw new CliError(`${command}: --as: expected a name`, USAGE_EXIT);
		return flag.trim();
	}
	const fromEnv = env['CONTROLROOM_WORKER']?.trim();
	return fromEnv ? fromEnv : null;
}
