import type {CommandHelp} from '../help.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const help: CommandHelp = {
	synopsis: ['web enroll --name NAME [--port N] [--timeout 5m]'],
	description: `The board in a browser, and the passkeys that sign its answers (docs/passkeys.md).
enroll: a person at a terminal adds a passkey. It lists every enrolled passkey (name, id, when), so
you see one you did not make, then prints a one-time link to a page this command serves on loopback
(http://localhost:PORT/...); open it in a browser on this machine and confirm with your fingerprint,
face or PIN. Once a passkey is enrolled, another needs an answer signed by an enrolled one first.`,
	options: [
		['--name NAME', 'enroll: what you call this passkey ("laptop Touch ID"); required'],
		['--port N', 'enroll: the loopback port of the page (default: any free port)'],
		['--timeout D', 'enroll: how long the link works (default 5m)'],
	],
	exits: [
		['0', 'enrolled'],
		['1', 'not enrolled: the time was up, or the registration was refused'],
		['64', 'bad command line'],
		['77', 'refused: an agent asked (only a person at a terminal enrolls a passkey; docs/security.md)'],
	],
	examples: [['controlroom web enroll --name "laptop Touch ID"', "enroll this laptop's passkey"]],
};

/** `controlroom web SUBCOMMAND`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [sub, ...rest] = argv;
	if (sub === 'enroll') return (await import('./web-enroll.ts')).runEnroll(rest);
	throw new CliError(
		sub === undefined ? 'web: expected a subcommand: enroll' : `web: unknown subcommand '${sub}' (enroll)`,
		USAGE_EXIT,
	);
}
