import type {Ledger} from '../ledger/open-ledger.ts';
import {startReceiver, type ReceiveReport, type Receiver, type RefusedReport} from '../otel/receiver.ts';
import {loadPriceTable} from './price-file.ts';
import {parseCommandArgs} from './args.ts';
import {openCommandLedger, out} from './context.ts';
import {CliError, USAGE_EXIT} from './errors.ts';
import {stopOnSignals} from './signals.ts';
import {terminalSafe} from '../core/terminal-text.ts';

/** The OTLP/HTTP port (what the agents' exporters use when told only a host). */
const OTLP_HTTP_PORT = 4318;
/** Exit code when the port is taken (EX_UNAVAILABLE). */
export const PORT_TAKEN_EXIT = 69;

/** A port flag's value (`flag` as the command spells it); absent: the OTLP/HTTP port. */
export function portOf(value: string | undefined, flag = '--port'): number {
	if (value === undefined) return OTLP_HTTP_PORT;
	const port = Number(value);
	if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)
		throw new CliError(`${flag}: expected a port number 0-65535, got '${terminalSafe(value)}'`, USAGE_EXIT);
	return port;
}

/**
 * The receiver inside a long-running command (`reconcile --otel-port`, `board --otel-port`),
 * for as long as it runs: what it records shows through the ledger, so only its errors are told
 * (`onError`, one line each). A port that is taken is the command's one refusal line, exit 69.
 */
export async function startReceiverBeside(
	ledger: Ledger,
	port: number,
	command: string,
	onError: (message: string) => void,
): Promise<Receiver> {
	try {
		return await startReceiver(ledger, port, {
			prices: loadPriceTable(),
			onReport: () => undefined,
			onRefused: report => onError(refusedLine(report)),
			onError,
		});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
			throw new CliError(`${command}: --otel-port: port ${port} on 127.0.0.1 is taken`, PORT_TAKEN_EXIT);
		throw error;
	}
}

function summary(report: ReceiveReport): string {
	const misnamed = report.misnamed ? `; ${report.misnamed} named a task of another session (put on their own)` : '';
	const claims = report.claims ? `; ${report.claims} cost claim${report.claims === 1 ? '' : 's'} not counted` : '';
	return `otel: ${report.signal}: ${report.records} records, ${report.appended} events recorded${misnamed}${claims}`;
}

/** One line for a request refused for want of the ledger's telemetry key (docs/otel.md). */
function refusedLine(report: RefusedReport): string {
	return `refused a request to ${terminalSafe(report.path)} without the ledger's telemetry key (401); ${report.total} refused so far (controlroom doctor counts them)`;
}

/** `controlroom otel receive`: until interrupted. */
export async function receive(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('otel receive', argv, {port: {type: 'string'}, json: {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError(`otel receive: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	const port = portOf(values.port);
	const ledger = openCommandLedger(values.ledger, {mode: 'create'});
	const stopping = stopOnSignals();
	try {
		const onReport = (report: ReceiveReport): void => {
			if (values.json) out(JSON.stringify(report));
			else if (report.appended > 0) out(summary(report));
		};
		const onError = (message: string): void => void process.stderr.write(`controlroom: otel receive: ${message}\n`);
		const onRefused = (report: RefusedReport): void => {
			if (values.json) out(JSON.stringify(report));
			else process.stderr.write(`controlroom: otel receive: ${refusedLine(report)}\n`);
		};
		let receiver;
		try {
			receiver = await startReceiver(ledger, port, {prices: loadPriceTable(), onReport, onRefused, onError});
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
				throw new CliError(`otel receive: port ${port} on 127.0.0.1 is taken`, PORT_TAKEN_EXIT);
			throw error;
		}
		out(values.json ? JSON.stringify({listening: receiver.url}) : `otel receive: listening on ${receiver.url}`);
		await new Promise<void>(resolve => stopping.signal.addEventListener('abort', () => resolve(), {once: true}));
		await receiver.close();
		return stopping.exitCode() ?? 0;
	} finally {
		stopping.dispose();
		ledger.close();
	}
}
