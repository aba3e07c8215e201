import {readFileSync, statSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {FleetError} from './fleet-error.ts';

/**
 * Where the fleet's password comes from, never a command line (docs/fleet.md, "The password"):
 * PGPASSWORD, else the password file libpq reads, PGPASSFILE or ~/.pgpass (lines
 * `host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped), which is
 * read only when no one but its owner can read it (mode 0600), as libpq does. The driver's own
 * reading of that file is deprecated and prints a warning over our output, so it is read here.
 */

/** What a connection is to: the fields a password file's line is matched on. */
export type PasswordTarget = {readonly host: string; readonly port: number; readonly database: string; readonly user: string};

/** One line's fields, `\:` and `\\` unescaped; null for a line that is not five fields. */
function fieldsOf(line: string): string[] | null {
	const fields: string[] = [];
	let current = '';
	for (let index = 0; index < line.length; index += 1) {
		const char = line[index];
		if (char === '\\' && index + 1 < line.length) {
			current += line[index + 1];
			index += 1;
		} else if (char === ':' && fields.length < 4) {
			fields.push(current);
			current = '';
		} else current += char;
	}
	fields.push(current);
	return fields.length === 5 ? fields : null;
}

/** The file's password for `target`: the first line whose fields match, or undefined. */
export function passwordFromFile(text: string, target: PasswordTarget): string | undefined {
	const wanted = [target.host, String(target.port), target.database, target.user];
	for (const line of text.split(/\r?\n/)) {
		if (line.startsWith('#') || line.trim() === '') continue;
		const fields = fieldsOf(line);
		if (!fields) continue;
		if (wanted.every((value, index) => fields[index] === '*' || fields[index] === value)) return fields[4];
	}
	return undefined;
}

/** The password file libpq would read: PGPASSFILE, else ~/.pgpass. */
function passwordFile(env: NodeJS.ProcessEnv): string {
	return env['PGPASSFILE'] || join(env['HOME'] || homedir(), '.pgpass');
}

/**
 * The password for a connection the server asks one of: PGPASSWORD, else the password file's
 * line for it. A file others can read is refused in one line (nothing of it is read), and no
 * password at all says where one goes.
 */
export function fleetPassword(target: PasswordTarget, env: NodeJS.ProcessEnv = process.env): string {
	const given = env['PGPASSWORD'];
	if (given !== undefined && given !== '') return given;
	const file = passwordFile(env);
	let mode: number | null = null;
	try {
		const stat = statSync(file);
		if (stat.isFile()) mode = stat.mode;
	} catch {
		// No file: said below.
	}
	const where = `user ${target.user} at ${target.host}:${target.port}/${target.database}`;
	if (mode !== null && (mode & 0o077) !== 0) {
		throw new FleetError(
			`the server asks a password for ${where}, and the password file ${file} can be read by others (mode ${(mode & 0o777).toString(8)}): not read; chmod 600 it`,
		);
	}
	const found = mode === null ? undefined : passwordFromFile(readFileSync(file, 'utf8'), target);
	if (found === undefined) {
		throw new FleetError(
			`the server asks a password for ${where}, and none is given: set PGPASSWORD, or add a line host:port:database:user:password to ${file} (mode 0600)`,
		);
	}
	return found;
}
