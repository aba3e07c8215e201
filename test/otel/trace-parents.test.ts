import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {taskSpanId} from '../../src/core/otel/trace-context.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/** `run` with a command that writes the TRACEPARENT it got to a file. */
function runPrintingTraceparent(ledger: string, out: string, extra: readonly string[], cwd?: string) {
	return runCli([
		'run',
		'--ledger',
		ledger,
		...(cwd ? ['--cwd', cwd] : []),
		...extra,
		'--',
		'sh',
		'-c',
		'printf %s "$TRACEPARENT" > "$0"',
		out,
		...(extra.includes('--contract') ? ['{{contract}}'] : []),
	]);
}

/** The one task of the ledger not among `known`. */
function newTaskOf(ledger: string, known: readonly string[] = []): string {
	const snapshot = JSON.parse(runCli(['snapshot', '--json', '--all', '--ledger', ledger]).stdout) as {tasks: {id: string}[]};
	const fresh = snapshot.tasks.map(task => task.id).filter(id => !known.includes(id));
	expect(fresh).toHaveLength(1);
	return fresh[0] ?? '';
}

describe('trace parents across work', () => {
	it("a contract's trace field parents the run's span: TRACEPARENT, the registration and explain say so", () => {
		const repo = makeContractRepo();
		// The fixture's trace field: {trace_id: 4bf92f35…, parent_span: 00f067aa…}
		const contract = repo.place('valid-task.yaml');
		const ledger = join(scratchDir('cr-trace-'), 'ledger.db');
		const out = join(repo.dir, 'traceparent.txt');
		const run = runPrintingTraceparent(ledger, out, ['--contract', contract], repo.dir);
		expect(run.status, run.stderr).toBe(0);
		const taskId = newTaskOf(ledger);
		expect(readFileSync(out, 'utf8')).toBe(`00-${TRACE}-${taskSpanId(taskId)}-01`);
		const explained = JSON.parse(runCli(['explain', taskId, '--json', '--ledger', ledger]).stdout);
		expect(explained.trace).toEqual({traceId: TRACE, spanId: taskSpanId(taskId), parentSpanId: PARENT});
		// A run that does it again stays in the trace, under the first run's span
		const again = runPrintingTraceparent(ledger, out, ['--rerun-of', taskId]);
		expect(again.status, again.stderr).toBe(0);
		const rerun = newTaskOf(ledger, [taskId]);
		expect(rerun).not.toBe(taskId);
		expect(JSON.parse(runCli(['explain', rerun, '--json', '--ledger', ledger]).stdout).trace).toEqual({
			traceId: TRACE,
			spanId: taskSpanId(rerun),
			parentSpanId: taskSpanId(taskId),
		});
		expect(readFileSync(out, 'utf8')).toBe(`00-${TRACE}-${taskSpanId(rerun)}-01`);
	}, 120_000);

	it('a run with no contract starts a trace of its own, or joins the TRACEPARENT it was started with', () => {
		const ledger = join(scratchDir('cr-trace-'), 'ledger.db');
		const out = join(scratchDir('cr-trace-out-'), 'tp.txt');
		expect(runPrintingTraceparent(ledger, out, []).status).toBe(0);
		expect(readFileSync(out, 'utf8')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
		expect(readFileSync(out, 'utf8')).not.toContain(TRACE);
		const inbound = runCli(['run', '--ledger', ledger, '--', 'sh', '-c', 'printf %s "$TRACEPARENT" > "$0"', out], {
			env: {TRACEPARENT: `00-${TRACE}-${PARENT}-01`},
		});
		expect(inbound.status, inbound.stderr).toBe(0);
		expect(readFileSync(out, 'utf8')).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
		expect(readFileSync(out, 'utf8')).not.toContain(PARENT);
	});
});
