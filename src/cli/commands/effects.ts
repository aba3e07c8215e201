import {effectState, stagedEffects, type OrderRecord} from '../../core/effects/fold.ts';
import {effectLabel, snapshotEffects, summarizeArgs} from '../../core/effects/view.ts';
import {formatDuration} from '../../core/format.ts';
import {terminalSafe, terminalSafeJson} from '../../core/terminal-text.ts';
import {approveEffects, type ApprovalResult} from '../../gates/effects/approve.ts';
import {ApprovalError, sendBackEffects} from '../../gates/effects/held.ts';
import {isApproverAlive} from '../../gates/effects/liveness.ts';
import {readReportFile, ReportFileError} from '../../gates/effects/report-file.ts';
import {readOrders} from '../../ledger/orders.ts';
import {boundedText, parseCommandArgs} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: [
		'effects list [ORDER] [--json] [--all]',
		'effects approve ORDER [--only ID ...] [--report FILE]',
		'effects reject ORDER --reason TEXT',
	],
	description: `The effect gate's held calls (docs/effects.md).
list: held effects by order: tool, arguments, state (held, started, finished, failed, outcome
unknown, rejected, expired) and age. Without ORDER: orders with open effects or effects settled in
the last 24h. With ORDER: that order's reads too.
approve: runs the held calls once each, in order, filling {"$ref": ID, "pointer": "/..."} from
earlier results. An effect started and never finished is outcome unknown and never sent again.
reject: sends the order's held effects back with the reason: they are dropped; nothing ran.`,
	options: [
		['--json', 'list: {version: 1, generatedAt, effects: [...]} (the snapshot effects[] shape)'],
		['--all', 'list: every order, however old'],
		['--only ID', 'approve: only these effects (ids or placeholders; repeatable)'],
		['--report FILE', "approve: the worker's report; its effects must match the gateway's log, else nothing runs"],
		['--reason TEXT', 'reject: why (the worker reads it); required'],
	],
	exits: [
		['0', 'listed; approve: every effect it meant to run finished, or nothing was held; reject: sent back'],
		['1', 'approve: refused (report mismatch, no such order, order file changed), an effect failed or its outcome is unknown'],
		['77', 'refused: an agent asked (only a person at a terminal says yes; recorded, and shown on the board; docs/security.md)'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
	],
	examples: [
		['controlroom effects list', 'what waits for approval'],
		['controlroom effects approve o-42 --report report.md', "run o-42's held effects once, if the report agrees"],
		['controlroom effects reject o-42 --reason "keep notes.txt"', 'drop them, telling the worker why'],
	],
};

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
	// Order ids, worker names, tools, arguments, errors and reasons are the agent's words: escaped.
	return lines.map(terminalSafe);
}

function list(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('effects list', argv, {json: {type: 'boolean'}, all: {type: 'boolean'}});
	if (positionals.length > 1) throw new CliError('effects list: expected at most one ORDER', USAGE_EXIT);
	const ledger = openCommandLedger(values.ledger, {mode: 'read'});
	try {
		const now = Date.now();
		const all = readOrders(ledger.reader);
		const wanted = positionals[0];
		if (wanted !== undefined && !all.has(wanted)) throw new CliError(`effects list: no order ${wanted} in the ledger`);
		const since = values.all || wanted !== undefined ? null : now - DAY_MS;
		const orders = [...all.values()].filter(order => (wanted === undefined ? true : order.id === wanted));
		const effects = snapshotEffects(orders, now, since, isApproverAlive);
		if (values.json) {
			out(terminalSafeJson({version: 1, generatedAt: new Date(now).toISOString(), effects}, 2));
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
	const lines: string[] = [];
	for (const id of result.expired) lines.push(`${id}: expired before approval, not sent`);
	for (const id of result.unknown) lines.push(`${id}: outcome unknown (started, never finished), not sent again`);
	lines.push(...result.notes);
	if (result.problems.length > 0) {
		lines.push(`nothing ran: the approval of ${result.orderId} was refused:`, ...result.problems.map(problem => `  ${problem}`));
	} else {
		if (result.outcomes.length === 0) lines.push(`nothing held in ${result.orderId}: nothing sent`);
		for (const outcome of result.outcomes)
			lines.push(`${outcome.id}: ${outcome.outcome}${outcome.detail ? ` (${outcome.detail})` : ''}`);
	}
	// Effect ids, upstream errors and problems quote what the agent sent: escaped.
	out(lines.map(terminalSafe).join('\n'));
}

async function approve(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('effects approve', argv, {
		only: {type: 'string', multiple: true},
		report: {type: 'string'},
	});
	const [orderId, ...rest] = positionals;
	if (orderId === undefined || rest.length > 0) throw new CliError('effects approve: expected one ORDER', USAGE_EXIT);
	let report;
	try {
		report = values.report === undefined ? undefined : readReportFile(values.report);
	} catch (error) {
		if (error instanceof ReportFileError) throw new CliError(error.message);
		throw error;
	}
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
	try {
		const result = await approveEffects(ledger, orderId, {
			only: values.only ?? [],
			...(report ? {report} : {}),
			source: 'cli',
			onWait: line => process.stderr.write(`controlroom: ${line}\n`),
			onProgress: line => process.stderr.write(`${terminalSafe(line)}\n`),
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
	const [orderId, ...rest] = positionals;
	if (orderId === undefined || rest.length > 0) throw new CliError('effects reject: expected one ORDER', USAGE_EXIT);
	const reason = values.reason?.trim() ?? '';
	if (reason === '') throw new CliError('effects reject: --reason TEXT is required (the worker reads it)', USAGE_EXIT);
	boundedText('--reason', reason);
	const ledger = openCommandLedger(values.ledger, {mode: 'existing'});
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
		case undefined:
			throw new CliError('effects: expected a verb: list, approve or reject (see controlroom effects --help)', USAGE_EXIT);
		default:
			throw new CliError(`effects: unknown verb '${verb}' (list, approve or reject)`, USAGE_EXIT);
	}
}
