import type {CommandHelp} from '../help.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import {nearestName} from '../../core/did-you-mean.ts';
import {terminalSafe} from '../../core/terminal-text.ts';

export const help: CommandHelp = {
	synopsis: [
		'otel receive [--port N] [--json]',
		'otel export --endpoint URL [--follow] [--since SEQ|TIME] [--protocol P] [--json]',
	],
	description: `OpenTelemetry both ways (docs/otel.md). \`receive\` is an OTLP/HTTP receiver on 127.0.0.1 that
records what Claude Code and Codex report about themselves (requests with their exact cost, tool
decisions and results, Claude's cost and token counters) on their tasks, matched by session id or
by the task id \`run --otel\` put among the resource attributes; what a hook or transcript also
reported is counted once. It takes /v1/logs and /v1/metrics in JSON or protobuf, plain or gzip,
and answers /v1/traces without keeping them. \`export\` sends the ledger to a collector as traces
under the GenAI conventions: an invoke_agent span per task, execute_tool spans for its tool
calls, plan spans for reviews and plan reviews, spans for held effects, decisions and stops with
who answered, the arguments' hash and the wait; one trace per piece of work across hand-ins,
reviews and re-runs. Each span is sent once: a cursor by seq is kept in the ledger and moves only
when the collector said yes, so a collector that is down holds nothing up and loses nothing. One
process at a time exports a ledger to an endpoint (\`sync --otel-endpoint\` included): another
\`export\` stops (exit 75), another \`export --follow\` waits to take over.`,
	options: [
		['--port N', 'receive: the port on 127.0.0.1 (default 4318, the OTLP/HTTP port; 0 picks a free one, printed)'],
		['--endpoint URL', 'export: the collector, http(s)://HOST:PORT (spans go to URL/v1/traces)'],
		['--follow', 'export: keep going, sending spans as their events are recorded, until interrupted'],
		['--since SEQ|DURATION', 'export: start after this seq, or this long ago (30m, 2h, 1d), instead of the kept cursor'],
		['--protocol json|protobuf', 'export: OTLP/HTTP encoding (default json)'],
		['--json', 'one JSON line per request received, or per export pass'],
	],
	exits: [
		['0', 'export without --follow: every span sent'],
		[
			'1',
			'the ledger cannot be opened or written; export without --follow: the collector did not take the spans (the cursor stays)',
		],
		['64', 'bad command line (an unknown verb, a port that is not a number, an endpoint that is not http(s)://...)'],
		['69', 'receive: the port is taken'],
		['75', 'export without --follow: another process exports this ledger to this endpoint (the message names it)'],
		['128+N', 'stopped by signal N: Ctrl-C gives 130, SIGTERM 143'],
	],
	examples: [
		['controlroom otel receive --port 4318', "record the agents' telemetry"],
		['controlroom run --otel http://127.0.0.1:4318 -- claude -p "fix the build"', 'a run whose exact cost lands on its task'],
		['controlroom otel export --endpoint http://127.0.0.1:4318 --follow', 'send the ledger to a collector as it grows'],
	],
};

const VERBS = ['receive', 'export'] as const;

/** `controlroom otel receive|export`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'receive') return (await import('../otel-receive.ts')).receive(rest);
	if (verb === 'export') return (await import('../otel-export.ts')).exportSpans(rest);
	if (verb === undefined) throw new CliError('otel: expected a verb: receive or export', USAGE_EXIT);
	const near = nearestName(verb, VERBS);
	throw new CliError(`otel: unknown verb '${terminalSafe(verb)}'${near ? ` (did you mean ${near}?)` : ''}`, USAGE_EXIT);
}
