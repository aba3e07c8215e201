import {CliError, USAGE_EXIT} from './errors.ts';
import {terminalSafe} from '../core/terminal-text.ts';

/** Who is acting, for the record (a send-back's `by`, a look at a finished task): `--as NAME`, else $USER, else `a person`. */
export function personName(flag: string | undefined): string {
	return flag ?? process.env['USER'] ?? 'a person';
}

/** A `--as NAME` as given, refused with one line when it names nobody (empty or only spaces). */
export function nonEmptyAs(command: string, flag: string | undefined): string | undefined {
	if (flag !== undefined && flag.trim() === '')
		throw new CliError(`${command}: --as: expected a name, got '${terminalSafe(flag)}'`, USAGE_EXIT);
	return flag;
}
