import {terminalSafe} from '../../core/terminal-text.ts';
import type {ReactionRule} from '../../core/reactions/rules.ts';
import {formatDuration} from '../../core/format.ts';
import {parseCommandArgs} from '../args.ts';
import {CONFIG_EXIT} from '../config-file.ts';
import {openCommandLedger, out} from '../context.ts';
import {CliError, USAGE_EXIT} from '../errors.ts';
import type {CommandHelp} from '../help.ts';
import {loadReactionRules, reactionsPath, readReactionsFile} from '../reactions-file.ts';

export const help: CommandHelp = {
	synopsis: ['reactions check [--rules FILE]', 'reactions run [--rules FILE] [--dry-run]'],
	description: `The reaction rules (docs/reactions.md): a versioned YAML file mapping events (ci-failed,
review-fix, stalled, collision, and the sent, escalated and notified of earlier firings) to actions
(send, notify, collision-policy), with no model in between. A rule never approves anything.
check: reads the file and says what is wrong, one line each: an unknown event or action, a setting of
the wrong kind, a rule that triggers itself (the loop named). Nothing else is opened.
run: one reactions step now, as a reconciler pass runs it; --dry-run prints what would fire and
writes and sends nothing.`,
	options: [
		['--rules FILE', 'the rule file (default: $CONTROLROOM_REACTIONS, else reactions.yaml beside the config file)'],
		['--dry-run', 'run: print what would fire; record nothing, send nothing'],
	],
	exits: [
		['0', 'check: the file is valid, or there is none (nothing reacts); run: done'],
		['64', 'bad command line, or no ledger at --ledger PATH'],
		['78', 'the rule file is wrong: each problem one line (check), or the first (run)'],
	],
	examples: [
		['controlroom reactions check', 'is reactions.yaml valid? what does it do?'],
		['controlroom reactions run --dry-run', 'what would fire now'],
	],
};

/** One rule as `check` lists it. */
function ruleLine(rule: ReactionRule): string {
	const settings: string[] = [];
	if (rule.on === 'ci-failed' && rule.action === 'send') settings.push(`last ${rule.lines} lines`);
	if (rule.action === 'send')
		settings.push(
			`${rule.retries} retries`,
			`retry window ${formatDuration(rule.retryWindowMs)}`,
			rule.escalateAfter === null ? 'never escalates' : `escalate after ${rule.escalateAfter} sends`,
		);
	if (rule.minutes !== null) settings.push(`after ${rule.minutes} min`);
	return `  ${rule.name}: ${rule.on} → ${rule.action}${settings.length === 0 ? '' : ` (${settings.join(', ')})`}`;
}

function check(argv: readonly string[]): number {
	const {values, positionals} = parseCommandArgs('reactions check', argv, {rules: {type: 'string'}});
	if (positionals.length > 0)
		throw new CliError(`reactions check: unexpected '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	const path = reactionsPath(values.rules);
	const read = readReactionsFile(path);
	if (read === 'missing') {
		if (values.rules !== undefined || process.env['CONTROLROOM_REACTIONS'])
			throw new CliError(`reactions ${path}: no such file`, CONFIG_EXIT);
		out(terminalSafe(`no rule file at ${path}: nothing reacts`));
		return 0;
	}
	if ('problems' in read) {
		for (const problem of read.problems) process.stderr.write(`controlroom: ${terminalSafe(problem)}\n`);
		return CONFIG_EXIT;
	}
	out(terminalSafe(`reactions ${path}: version ${read.rules.version}, ${read.rules.rules.length} rules, valid`));
	for (const rule of read.rules.rules) out(ruleLine(rule));
	return 0;
}

async function runStep(argv: readonly string[]): Promise<number> {
	const {values, positionals} = parseCommandArgs('reactions run', argv, {rules: {type: 'string'}, 'dry-run': {type: 'boolean'}});
	if (positionals.length > 0) throw new CliError(`reactions run: unexpected '${terminalSafe(positionals[0] ?? '')}'`, USAGE_EXIT);
	const rules = loadReactionRules(values.rules);
	const isDryRun = values['dry-run'] === true;
	const ledger = openCommandLedger(values.ledger, {mode: isDryRun ? 'read' : 'existing'});
	try {
		const {deliveryLine, firingLine, runReactions} = await import('../../producers/reactions.ts');
		const {sendReaction} = await import('../../gates/reaction-send.ts');
		const result = await runReactions(ledger, {rules: rules.rules, deliver: sendReaction(ledger), dryRun: isDryRun});
		for (const firing of result.firings) out(terminalSafe(firingLine(firing, isDryRun)));
		for (const delivery of result.deliveries) out(terminalSafe(deliveryLine(delivery)));
		if (result.firings.length === 0 && result.deliveries.length === 0)
			out(rules.rules.length === 0 ? 'no reaction rules: nothing reacts' : isDryRun ? 'nothing would fire' : 'nothing fired');
		return 0;
	} finally {
		ledger.close();
	}
}

/** `controlroom reactions check|run`. */
export async function run(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	if (verb === 'check') return check(rest);
	if (verb === 'run') return runStep(rest);
	throw new CliError(
		`reactions: expected check or run, not '${terminalSafe(verb ?? '')}' (controlroom reactions --help)`,
		USAGE_EXIT,
	);
}
