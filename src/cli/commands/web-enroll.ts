import {formatDuration} from '../../core/format.ts';
import {parseDuration} from '../../core/duration.ts';
import type {EnrolledPasskey} from '../../core/passkey/fold.ts';
import {terminalSafe} from '../../core/terminal-text.ts';
import {checkPasskeyName} from '../../gates/passkey/index.ts';
import {requirePerson} from '../../gates/person-gate.ts';
import {readPasskeys} from '../../ledger/passkeys.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {gateCall} from '../gate-call.ts';
import {startEnrollServer} from '../web-enroll/enroll-server.ts';

/** How long the enrollment page waits, by default. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** One enrolled passkey as listed: name, id prefix, when it was enrolled. */
export function passkeyLine(passkey: EnrolledPasskey): string {
	return `  ${passkey.name}  id ${passkey.credentialId.slice(0, 12)}…  enrolled ${new Date(passkey.createdAt).toISOString()}${passkey.by ? ` by ${passkey.by}` : ''}`;
}

/** `controlroom web enroll --name NAME`: a person at a terminal starts a registration in the browser. */
export async function runEnroll(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('web enroll', argv, {
		name: {type: 'string'},
		port: {type: 'string'},
		timeout: {type: 'string'},
	});
	if (positionals.length > 0) throw new CliError(`web enroll: unexpected '${positionals[0]}'`, USAGE_EXIT);
	if (values.name === undefined)
		throw new CliError('web enroll: --name NAME is required (e.g. --name "laptop Touch ID")', USAGE_EXIT);
	const port = values.port === undefined ? 0 : Number(values.port);
	if (!Number.isInteger(port) || port < 0 || port > 65_535)
		throw new CliError(`--port: expected a port number 0-65535, got ${values.port}`, USAGE_EXIT);
	const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(values.timeout);
	if (timeoutMs === null || timeoutMs <= 0)
		throw new CliError(`--timeout: expected a duration like 5m, got ${values.timeout}`, USAGE_EXIT);
	const name = await gateCall(() => checkPasskeyName(values.name ?? ''));
	const ledger = openCommandLedger(values.ledger, {mode: 'create'});
	try {
		const person = requirePerson(ledger, {verb: 'web enroll', target: name, source: 'cli'});
		const {passkeys} = readPasskeys(ledger.reader);
		// Every key is listed, so a person sees one they did not make.
		const listed =
			passkeys.length === 0
				? ['no passkey is enrolled yet']
				: [`enrolled passkeys (${passkeys.length}):`, ...passkeys.map(passkeyLine)];
		out(listed.map(line => terminalSafe(line)).join('\n'));
		const server = await startEnrollServer(ledger, {name, user: person.user ?? 'person', port, timeoutMs});
		const approval = passkeys.length > 0 ? ' (an enrolled passkey approves it first)' : '';
		out(
			terminalSafe(
				`open this link in a browser on this machine to enroll "${name}"${approval}; it works once, for ${formatDuration(timeoutMs)}:`,
			),
		);
		out(server.url);
		try {
			const enrolled = await gateCall(() => server.done);
			out(terminalSafe(`enrolled passkey "${enrolled.name}" (id ${enrolled.credentialId.slice(0, 12)}…)`));
			return 0;
		} finally {
			server.close();
		}
	} finally {
		ledger.close();
	}
}
