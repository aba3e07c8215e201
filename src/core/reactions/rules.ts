import {parseDocument} from 'yaml';
import * as z from 'zod';
import {nearestName} from '../did-you-mean.ts';
import {parseDuration} from '../duration.ts';
import {terminalSafe} from '../terminal-text.ts';

/**
 * The reactions rule file (docs/reactions.md): a versioned YAML list of rules, each mapping one
 * event to one action, with no model in between. Pure: the file is read in src/cli/reactions-file.ts.
 */

/** The file's version this build reads. */
export const RULES_VERSION = 1;

/** What happens in the world that a rule reacts to. */
export const TRIGGER_EVENTS = ['ci-failed', 'review-fix', 'stalled', 'collision'] as const;
/** What a firing itself says happened; a rule may react to these too (and the check refuses loops). */
export const FOLLOW_EVENTS = ['sent', 'escalated', 'notified'] as const;
export const REACTION_EVENTS = [...TRIGGER_EVENTS, ...FOLLOW_EVENTS] as const;
export type ReactionEvent = (typeof REACTION_EVENTS)[number];

/** Every action a rule may take. None approves anything: approving is a person's (docs/decisions.md). */
export const REACTION_ACTIONS = ['send', 'notify', 'collision-policy'] as const;
export type ReactionAction = (typeof REACTION_ACTIONS)[number];

/** The events an action's firing makes: what a rule listening to them would react to next. */
export const ACTION_EMITS: Readonly<Record<ReactionAction, readonly ReactionEvent[]>> = {
	send: ['sent', 'escalated'],
	notify: ['notified'],
	'collision-policy': [],
};

/** The actions each event takes. */
const ALLOWED: Readonly<Record<ReactionEvent, readonly ReactionAction[]>> = {
	'ci-failed': ['send', 'notify'],
	'review-fix': ['send', 'notify'],
	stalled: ['notify'],
	collision: ['collision-policy'],
	sent: ['send', 'notify'],
	escalated: ['send', 'notify'],
	notified: ['send', 'notify'],
};

export const DEFAULT_LINES = 50;
export const MAX_LINES = 500;
export const DEFAULT_RETRIES = 2;
export const MAX_RETRIES = 10;
export const DEFAULT_RETRY_WINDOW_MS = 10 * 60_000;

export type ReactionRule = {
	readonly name: string;
	readonly on: ReactionEvent;
	readonly action: ReactionAction;
	/** ci-failed → send: how many of the log's last lines go. */
	readonly lines: number;
	/** send: further delivery attempts after a failed one. */
	readonly retries: number;
	/** send: a second trigger for the same task within this time of a send does not send again. */
	readonly retryWindowMs: number;
	/** send: after this many sends to one task, the next firing goes to a person instead; null: never. */
	readonly escalateAfter: number | null;
	/** stalled: minutes of silence. */
	readonly minutes: number | null;
};

export type ReactionRules = {readonly version: number; readonly rules: readonly ReactionRule[]};

const SETTINGS = ['name', 'on', 'do', 'lines', 'retries', 'retry-window', 'escalate-after', 'minutes'] as const;

const ruleSchema = z
	.object({
		name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a name of lowercase letters, digits, . _ - (at most 64)'),
		on: z.string(),
		do: z.string(),
		lines: z.optional(z.int().min(1).max(MAX_LINES)),
		retries: z.optional(z.int().min(0).max(MAX_RETRIES)),
		'retry-window': z.optional(z.string()),
		'escalate-after': z.optional(z.int().min(1)),
		minutes: z.optional(z.number().positive()),
	})
	.strict();

const fileSchema = z.object({version: z.literal(RULES_VERSION), rules: z.array(z.unknown()).max(100)}).strict();

/** One problem, one line: where, then what. */
function issueLine(where: string, issue: z.core.$ZodIssue): string {
	const path = issue.path.map(String).join('.');
	if (issue.code === 'unrecognized_keys') {
		const key = issue.keys[0] ?? '';
		const near = nearestName(key, SETTINGS);
		return `${where}: unknown setting '${terminalSafe(key)}'${near === null ? '' : ` (did you mean ${near}?)`}`;
	}
	return `${where}${path === '' ? '' : `: ${path}`}: ${terminalSafe(issue.message)}`;
}

/** Each rule's problems, one line each; the rule when it has none. */
function checkRule(raw: unknown, index: number): {rule: ReactionRule} | {problems: string[]} {
	const label = (name: unknown) => `rule ${index + 1}${typeof name === 'string' ? ` (${terminalSafe(name)})` : ''}`;
	const name = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)['name'] : undefined;
	const where = label(name);
	const parsed = ruleSchema.safeParse(raw);
	if (!parsed.success) return {problems: parsed.error.issues.map(issue => issueLine(where, issue))};
	const given = parsed.data;
	const problems: string[] = [];
	const on = REACTION_EVENTS.find(known => known === given.on);
	const action = REACTION_ACTIONS.find(known => known === given.do);
	if (on === undefined) {
		const near = nearestName(given.on, REACTION_EVENTS);
		problems.push(
			`${where}: unknown event '${terminalSafe(given.on)}'${near === null ? '' : ` (did you mean ${near}?)`}; events: ${REACTION_EVENTS.join(', ')}`,
		);
	}
	if (action === undefined) {
		const near = nearestName(given.do, REACTION_ACTIONS);
		const approving = /approve|allow|accept/i.test(given.do) ? ' (a rule never approves anything)' : '';
		problems.push(
			`${where}: unknown action '${terminalSafe(given.do)}'${approving}${near === null ? '' : ` (did you mean ${near}?)`}; actions: ${REACTION_ACTIONS.join(', ')}`,
		);
	}
	if (on !== undefined && action !== undefined && !ALLOWED[on].includes(action))
		problems.push(`${where}: ${on} takes ${ALLOWED[on].join(' or ')}, not ${action}`);
	const window = given['retry-window'] === undefined ? DEFAULT_RETRY_WINDOW_MS : parseDuration(given['retry-window']);
	if (window === null || window <= 0)
		problems.push(`${where}: retry-window: a duration such as 10m, not '${terminalSafe(given['retry-window'] ?? '')}'`);
	if (given.lines !== undefined && on !== 'ci-failed') problems.push(`${where}: lines: only a ci-failed rule sends log lines`);
	if (on === 'stalled' && given.minutes === undefined) problems.push(`${where}: minutes: a stalled rule says after how many`);
	if (on !== undefined && on !== 'stalled' && given.minutes !== undefined)
		problems.push(`${where}: minutes: only a stalled rule waits minutes`);
	const sendOnly = (['retries', 'retry-window', 'escalate-after'] as const).filter(key => given[key] !== undefined);
	if (action !== undefined && action !== 'send' && sendOnly.length > 0)
		problems.push(`${where}: ${sendOnly[0]}: only a send rule retries or escalates`);
	if (problems.length > 0 || on === undefined || action === undefined || window === null) return {problems};
	return {
		rule: {
			name: given.name,
			on,
			action,
			lines: given.lines ?? DEFAULT_LINES,
			retries: given.retries ?? DEFAULT_RETRIES,
			retryWindowMs: window,
			escalateAfter: given['escalate-after'] ?? null,
			minutes: given.minutes ?? null,
		},
	};
}

/**
 * A loop among the rules: the names along it, the first repeated at the end (`a → sent → b →
 * notified → a`), or null. A rule's firing makes its action's events (ACTION_EMITS); a rule
 * listening to one of them fires next.
 */
export function findCycle(rules: readonly Pick<ReactionRule, 'name' | 'on' | 'action'>[]): string[] | null {
	const next = (rule: Pick<ReactionRule, 'action'>) =>
		ACTION_EMITS[rule.action].flatMap(event => rules.filter(other => other.on === event).map(other => ({event, other})));
	const state = new Map<string, 'open' | 'done'>();
	const walk = (rule: Pick<ReactionRule, 'name' | 'on' | 'action'>, path: string[]): string[] | null => {
		state.set(rule.name, 'open');
		for (const {event, other} of next(rule)) {
			if (state.get(other.name) === 'open') {
				const start = path.indexOf(other.name);
				return [...path.slice(start), event, other.name];
			}
			if (state.get(other.name) === undefined) {
				const found = walk(other, [...path, event, other.name]);
				if (found !== null) return found;
			}
		}
		state.set(rule.name, 'done');
		return null;
	};
	for (const rule of rules) {
		if (state.get(rule.name) !== undefined) continue;
		const found = walk(rule, [rule.name]);
		if (found !== null) return found;
	}
	return null;
}

/** How a loop reads in a problem line: `a (send) → sent → a`. */
function cycleLine(cycle: readonly string[], rules: readonly ReactionRule[]): string {
	const shown = cycle.map((step, index) => {
		if (index % 2 === 1) return step;
		const rule = rules.find(candidate => candidate.name === step);
		return rule === undefined || index === cycle.length - 1 ? step : `${step} (${rule.action})`;
	});
	const [first] = cycle;
	const self = cycle.length === 3 ? `rule ${first} triggers itself` : 'rules trigger one another in a loop';
	return `${self}: ${shown.join(' → ')}`;
}

/**
 * Reads a rule file's text: the rules, or every problem, one line each (a loop, an unknown event or
 * action, a setting of the wrong kind, a repeated name).
 */
export function parseReactionRules(text: string): {rules: ReactionRules} | {problems: string[]} {
	const document = parseDocument(text.replace(/^\uFEFF/, ''), {uniqueKeys: true});
	const [yamlError] = document.errors;
	if (yamlError !== undefined) return {problems: [`not valid YAML: ${terminalSafe(yamlError.message.split('\n')[0] ?? '')}`]};
	const value: unknown = document.toJS({maxAliasCount: 50});
	if (value === null || value === undefined) return {problems: [`empty; a rule file starts with version: ${RULES_VERSION}`]};
	const file = fileSchema.safeParse(value);
	if (!file.success) return {problems: file.error.issues.map(issue => issueLine('file', issue))};
	const problems: string[] = [];
	const rules: ReactionRule[] = [];
	const names = new Set<string>();
	file.data.rules.forEach((raw, index) => {
		const checked = checkRule(raw, index);
		if ('problems' in checked) {
			problems.push(...checked.problems);
			return;
		}
		if (names.has(checked.rule.name)) problems.push(`rule ${index + 1} (${checked.rule.name}): the name is used twice`);
		names.add(checked.rule.name);
		rules.push(checked.rule);
	});
	if (problems.length > 0) return {problems};
	const cycle = findCycle(rules);
	if (cycle !== null) return {problems: [cycleLine(cycle, rules)]};
	return {rules: {version: file.data.version, rules}};
}
