import {effectState, stagedEffects, type OrderRecord} from '../../core/effects/fold.ts';
import {effectLabel, snapshotEffects, summarizeArgs} from '../../core/effects/view.ts';
import {formatDuration} from '../../core/format.ts';
import {ApprovalError, approveEffects, sendBackEffects, type ApprovalResult} from '../../gates/effects/approve.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {readReportFile, ReportFileError} from '../../gates/effects/report-file.ts';
import {readOrders} from '../../ledger/orders.ts';
import {parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom effects list [ORDER] [--json] [--all]
  Held effects by order: tool, arguments, state (held, started, finished, failed, outcome unknown,
  rejected, expired) and age. Without ORDER: orders with open effects or effects settled in the last
  24h (--all: every order). With ORDER: that order's reads too.
controlroom effects approve ORDER [--only ID ...] [--report FILE]
  Runs the held calls once each, in order, filling {"$ref": ID, "pointer": "/..."} from earlier
  results. --report: the worker's report; its \`effects\` must match the gateway's log, else nothing
  runs. Exit 0 all ran (or nothing was held), 1 refused or an effect failed, 64 bad command line.
controlroom effects reject ORDER --reason TEXT
  Sends the order's held effects back: they are dropped, with the reason; nothing ran.`;

const DAY_MS = 24 * 3_600_000;

function ago(ms: number, now: number): string {
	return `${formatDuration(now - ms)} ago`;
}

function orderLines(order: OrderRecord, now: number, withReads: boolean): string[] {
	const lines = [
		`${order.id}  worker ${order.worker ?? 'unknown'}${order.parent ? `  derived from ${order.parent}` : ''}  calls ${order.effects.length}/${order.budgetCalls ?? 'unknown'}`,
	];
	for (const effect of withReads ? order.effects : stagedEffects(order)) {
		const state = effect.kind === 'read' ? 'read' : effectLabel(effect, effectState(effect, now, isApproverAlive));
		const when =
			state === 'held' && effect.expiresAt !== null
				? `held ${ago(effect.calledAt, now)}, expires in ${formatDuration(effect.expiresAt - now)}`
				: ago(effect.calledAt, now);
		const detail = effect.rejectReason ? `  reason: ${effect.rejectReason}` : effect.error ? `  error: ${effect.error}` : '';
		lines.push(`  ${state.padEnd(15)} ${effect.id.padEnd(28)} ${summarizeArgs(effect.args, 80)}  ${when}${detail}`);
	}
	if (lines.length === 1) lines.push('  no calls yet');
	return lines;
}

function list(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('effects list', argv, {json: {type: 'boolean'}, all: {type: 'boolean'}});
	if (values.help) return (out(usage), 0);
	if (positionals.length > 1) throw new CliError('effects list: expected at most one ORDER', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {isReading: true});
	try {
		const now = Date.now();
		const all = readOrders(ledger.reader);
		const wanted = positionals[0];
		if (wanted !== undefined && !all.has(wanted)) throw new CliError(`effects list: no order ${wanted} in the ledger`);
		const since = values.all || wanted !== undefined ? null : now - DAY_MS;
		const orders = [...all.values()].filter(order => (wanted === undefined ? true : order.id === wanted));
		const effects = snapshotEffects(orders, now, since, isApproverAlive);
		if (values.json) {
			out(JSON.stringify({version: 1, generatedAt: new Date(now).toISOString(), effects}, null, 2));
			return 0;
		}
		const shown = orders.filter(order => wanted !== undefined || effects.some(effect => effect.order === order.id));
		out(shown.length === 0 ? 'no held effects' : shown.flatMap(order => orderLines(order, now, wanted !== undefined)).join('\n'));
		return 0;
	} finally {
		ledger.close();
	}
}

function printApproval(result: ApprovalResult): void {
	for (const id of result.expired) out(`${id}: expired before approval, not sent`);
	for (const id of result.unknown) out(`${id}: outcome unknown (started, never finished), not sent again`);
	for (const note of result.notes) out(note);
	if (result.problems.length > 0) {
		out(`nothing ran: the approval of ${result.orderId} was refused:`);
		for (const problem of result.problems) out(`  ${problem}`);
		return;
	}
	if (result.outcomes.length === 0) out(`nothing held in ${result.orderId}: nothing sent`);
	for (const outcome of result.outcomes) out(`${outcome.id}: ${outcome.outcome}${outcome.detail ? ` (${outcome.detail})` : ''}`);
}

async function approve(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('effects approve', argv, {
		only: {type: 'string', multiple: true},
		report: {type: 'string'},
	});
	if (values.help) return (out(usage), 0);
	const [orderId, ...rest] = positionals;
	if (orderId === undefined || rest.length > 0) throw new CliError('effects approve: expected one ORDER', USAGE_EXIT);
	let report;
	try {
		report = values.report === undefined ? undefined : readReportFile(values.report);
	} catch (error) {
		if (error instanceof ReportFileError) throw new CliError(error.message);
		throw error;
	}
	const ledger = openCommandLedger(values.ledger);
	try {
		const result = await approveEffects(ledger, orderId, {
			only: values.only ?? [],
			...(report ? {report} : {}),
			source: 'cli',
			onProgress: line => process.stderr.write(`${line}\n`),
		});
		printApproval(result);
		return result.isSuccess ? 0 : 1;
	} catch (error) {
		if (error instanceof ApprovalError) throw new CliError(error.message);
		throw error;
	} finally {
		ledger.close();
	}
}

function reject(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('effects reject', argv, {reason: {type: 'string'}});
	if (values.help) return (out(usage), 0);
	const [orderId, ...rest] = positionals;
	if (orderId === undefined || rest.length > 0) throw new CliError('effects reject: expected one ORDER', USAGE_EXIT);
	const reason = values.reason?.trim() ?? '';
	if (reason === '') throw new CliError('effects reject: --reason TEXT is required (the worker reads it)', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger);
	try {
		const result = sendBackEffects(ledger, orderId, reason, 'cli');
		for (const id of result.expired) out(`${id}: had expired already`);
		out(
			result.ids.length === 0 ? `nothing held in ${orderId}: nothing sent back` : `sent back ${result.ids.join(', ')}: ${reason}`,
		);
		return 0;
	} catch (error) {
		if (error instanceof ApprovalError) throw new CliError(error.message);
		throw error;
	} finally {
		ledger.close();
	}
}

/** `controlroom effects list|approve|reject`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	switch (verb) {
		case 'list':
			return list(rest);
		case 'approve':
			return approve(rest);
		case 'reject':
			return reject(rest);
		case '--help':
		case '-h':
		case undefined:
			out(usage);
			return verb === undefined ? USAGE_EXIT : 0;
		default:
			throw new CliError(`effects: unknown verb '${verb}' (list, approve or reject)`, USAGE_EXIT);
	}
}
