import {setTimeout as sleep} from 'node:timers/promises';
import {agentNamesFrom, DEFAULT_RECONCILE_INTERVAL_MS, reconcileOnce, type ReconcileResult} from '../../producers/reconciler.ts';
import {parseCommandArgs, positiveSeconds} from '../args.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';

/** Exit code of a reconciler whose ledger file was deleted or replaced while it ran (it went on with the new file). */
const LEDGER_REPLACED_EXIT = 3;

export const help: CommandHelp = {
	synopsis: ['reconcile [--once] [--interval SECONDS] [--agents NAMES] [--json]'],
	description: `Each pass: folds spool files into the ledger; marks running tasks whose process is gone with no
exit as lost (a hook session whose last turn had completed ends instead, exit code unknown);
records agent processes nobody registered (claude, codex, or --agents / CONTROLROOM_AGENT_NAMES) as
untracked, ended (outcome unknown) when they vanish. Without --once it repeats every
--interval seconds until interrupted (the board runs the same pass on its own timer).`,
	options: [
		['--once', 'one pass, then exit'],
		['--interval SECONDS', 'time between passes (default 5)'],
		['--agents NAMES', 'comma-separated process names to look for instead of claude and codex'],
		['--json', 'one JSON line per pass'],
	],
	exits: [
		['0', 'done (--once), or interrupted with Ctrl-C or SIGTERM'],
		['1', 'the ledger cannot be opened or written'],
		['3', 'the ledger file was deleted or replaced while it ran (it said so on stderr and went on with the new file)'],
		['64', 'bad command line, or a --ledger in a folder that does not exist'],
	],
	examples: [
		['controlroom reconcile --once', 'one pass now, with a one-line summary'],
		['controlroom reconcile --interval 10 --agents aider,goose', 'a pass every 10 s, also looking for aider and goose'],
	],
};

function summary(result: ReconcileResult): string {
	const parts = [
		`spool ${result.spool.lines} lines (${result.spool.appended} events, ${result.spool.rejected} rejected` +
			`${result.spool.setAside ? `, ${result.spool.setAside} files moved to spool/rejected/` : ''})`,
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
	if (positionals.length > 0) throw new CliError(`reconcile: unexpected argument '${positionals[0]}'`, USAGE_EXIT);
	const intervalSeconds = positiveSeconds('interval', values.interval);
	const intervalMs = intervalSeconds === undefined ? DEFAULT_RECONCILE_INTERVAL_MS : intervalSeconds * 1000;
	const agentNames = agentNamesFrom(values.agents ?? process.env['CONTROLROOM_AGENT_NAMES']);
	const ledger = openCommandLedger(values.ledger, {mode: 'create'});
	const stopping = new AbortController();
	const stopLoop = (): void => stopping.abort();
	process.once('SIGINT', stopLoop);
	process.once('SIGTERM', stopLoop);
	let exitCode = 0;
	try {
		for (;;) {
			const result = reconcileOnce(ledger, {agentNames});
			if (result.ledgerChange) {
				exitCode = LEDGER_REPLACED_EXIT;
				process.stderr.write(
					`controlroom: the ledger ${result.ledgerChange.path} was ${result.ledgerChange.kind}: reconciling the new file there from now on\n`,
				);
			}
			out(values.json ? JSON.stringify(result) : summary(result));
			if (values.once || stopping.signal.aborted) return exitCode;
			await sleep(intervalMs, undefined, {signal: stopping.signal}).catch(() => undefined);
			if (stopping.signal.aborted) return exitCode;
		}
	} finally {
		process.off('SIGINT', stopLoop);
		process.off('SIGTERM', stopLoop);
		ledger.close();
	}
}
