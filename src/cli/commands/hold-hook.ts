import {parseHoldPolicy} from '../../core/decisions/hold-policy.ts';
import {isAnsweredWithoutLedger, type HoldHookConfig} from '../../gates/hold-quick.ts';
import {MAX_LINE_BYTES} from '../../ledger/payload-limits.ts';
import {readHookStdin} from '../../producers/agent-hook/hook-stdin.ts';
import {parseCommandArgs} from '../args.ts';
import {holdFaultAnswer} from '../hold-fault.ts';
import type {CommandHelp} from '../help.ts';

export const help: CommandHelp = {
	synopsis: ['hold-hook --cwd DIR --policy POLICY [--on-budget stop|ask]'],
	description: `The PreToolUse hook \`controlroom run\` gives a Claude Code run it holds (through --settings; you
do not run it by hand). Answers at once, never waits: the answer a resumed run carries for exactly
its call, a pause when the budget is crossed (--on-budget ask), \`defer\` for a call the hold policy
holds in a headless run (recording the question), or nothing. On a fault a headless run's call is
denied with the reason; an interactive one's is left to Claude's own dialog. docs/headless-holds.md.`,
	options: [
		['--cwd DIR', "the run's folder: writes outside it are held"],
		['--policy POLICY', "the run's hold policy, base64url JSON, fixed when the run started"],
		['--on-budget stop|ask', 'ask: a crossed budget holds the next tool call and asks for more'],
	],
	exits: [['0', 'always: the answer is on stdout (Claude reads it), a fault on stderr']],
	examples: [['controlroom run -- claude -p "clean the build"', 'how it is used: the wrapper installs it for the run']],
};

/** `controlroom hold-hook`: the hold policy's PreToolUse hook (docs/headless-holds.md). */
export async function run(argv: readonly string[]): Promise<number> {
	let answer: string;
	try {
		const {values} = parseCommandArgs('hold-hook', argv, {
			cwd: {type: 'string'},
			policy: {type: 'string'},
			'on-budget': {type: 'string'},
		});
		const read = parseHoldPolicy(Buffer.from(values.policy ?? '', 'base64url').toString('utf8'));
		if ('problem' in read) throw new Error(`--policy: ${read.problem}`);
		const stdin = (await readHookStdin(MAX_LINE_BYTES)).toString('utf8');
		const config: HoldHookConfig = {
			policy: read.policy,
			cwd: values.cwd ?? process.cwd(),
			onBudget: values['on-budget'] === 'ask' ? 'ask' : 'stop',
		};
		// An ordinary call needs no ledger: SQLite and the gate are loaded only for the others.
		if (isAnsweredWithoutLedger(config, stdin, process.env)) {
			answer = '';
		} else {
			const [{holdHookAnswer}, {openCommandLedger}] = await Promise.all([
				import('../../gates/hold-hook.ts'),
				import('../context.ts'),
			]);
			const ledger = openCommandLedger(values.ledger, {mode: 'existing', busyTimeoutMs: 2000});
			try {
				answer = holdHookAnswer(ledger, config, stdin, process.env);
			} finally {
				ledger.close();
			}
		}
	} catch (error) {
		const message = (error as Error).message.split('\n')[0] ?? 'unknown fault';
		process.stderr.write(`controlroom hold-hook: ${message}\n`);
		answer = holdFaultAnswer(message);
	}
	if (answer !== '') process.stdout.write(`${answer}\n`);
	return 0;
}
