import {setTimeout as sleep} from 'node:timers/promises';
import {agentNamesFrom, DEFAULT_RECONCILE_INTERVAL_MS, reconcileOnce, type ReconcileResult} from '../../producers/reconciler.ts';
import {parseCommandArgs, positiveSeconds} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';

export const usage = `controlroom reconcile [--once] [--interval SECONDS] [--agents NAMES] [--json] [--ledger PATH]
  Each pass: folds spool files into the ledger; marks running tasks whose process is gone with no
  exit as lost (a hook session whose last turn had completed ends instead, exit code unknown);
  records agent processes nobody registered (claude, codex, or --agents a,b /
  CONTROLROOM_AGENT_NAMES) as untracked, ended (outcome unknown) when they vanish. Without --once
  it repeats every --interval seconds (default 5) until interrupted.`;

function summary(result: ReconcileResult): string {
	const parts = [
		`spool ${result.spool.lines} lines (${result.spool.appended} events, ${result.spool.rejected} rejected)`,
		`lost ${result.lost.length}${result.lost.length ? ` [${result.lost.map(entry => entry.taskId).join(', ')}]` : ''}`,
		`ended ${result.ended.length}${result.ended.length ? ` [${result.ended.map(entry => entry.taskId).join(', ')}]` : ''}`,
		`untracked ${result.discovered.length}${result.discovered.length ? ` [${result.discovered.map(entry => `${entry.taskId} ${entry.name}`).join(', ')}]` : ''}`,
		`${result.processes} processes in ${result.elapsedMs.toFixed(1)} ms`,
	];
	return `reconciled: ${parts.join('; ')}`;
}

/** `controlroom reconcile`: the reconciler, once or on a timer. */
export async function run(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('reconcile', argv, {
		once: {type: 'boolean'},
		interval: {type: 'string'},
		agents: {type: 'string'},
		json: {type: 'boolean'},
	});
	if (values.help) return (out(usage), 0);
	if (positionals.length > 0) throw new CliError(`reconcile: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	const intervalSeconds = positiveSeconds('interval', values.interval);
	const intervalMs = intervalSeconds === undefined ? DEFAULT_RECONCILE_INTERVAL_MS : intervalSeconds * 1000;
	const agentNames = agentNamesFrom(values.agents ?? process.env['CONTROLROOM_AGENT_NAMES']);
	const ledger = openCommandLedger(values.ledger);
	const stopping = new AbortController();
	const stopLoop = (): void => stopping.abort();
	process.once('SIGINT', stopLoop);
	process.once('SIGTERM', stopLoop);
	try {
		for (;;) {
			const result = reconcileOnce(ledger, {agentNames});
			out(values.json ? JSON.stringify(result) : summary(result));
			if (values.once || stopping.signal.aborted) return 0;
			await sleep(intervalMs, undefined, {signal: stopping.signal}).catch(() => undefined);
			if (stopping.signal.aborted) return 0;
		}
	} finally {
		process.off('SIGINT', stopLoop);
		process.off('SIGTERM', stopLoop);
		ledger.close();
	}
}
