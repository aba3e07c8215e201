import {POLICY_TOKENS} from './contract/policy-values.ts';
import {parseDuration} from './duration.ts';
import {DEFAULT_STALL_SECONDS} from './status.ts';

/**
 * The kinds of value a setting takes, each with one rule for reading it from text (a flag, an
 * environment variable) and one for the config file (docs/config.md).
 */
type KindValues = {
	/** A positive whole number. */
	readonly count: number;
	/** A positive number of seconds, fractions allowed. */
	readonly seconds: number;
	/** A duration like `90m`, `24h` or `7d`, held in milliseconds. */
	readonly duration: number;
	/** Process names; as text, a comma-separated list. */
	readonly names: readonly string[];
	readonly onOff: boolean;
	/** The board's keys: a command's name and the key or keys that replace its own (src/core/board/key-config.ts). */
	readonly keys: Readonly<Record<string, string | readonly string[]>>;
	/** The board's colours: a tone and its colour (src/core/board/palette.ts). */
	readonly colors: Readonly<Record<string, string>>;
	/** What a receiver requires of a contract (docs/contracts.md, "The receiver's policy"); as text, a comma-separated list. */
	readonly requirements: readonly string[];
	/** Who may say yes: `terminal` (the actor rule) or `passkey` (only passkey-signed answers; docs/passkeys.md). */
	readonly approvals: 'terminal' | 'passkey';
	/** The second-writer policy by checkout root (an absolute folder, or `*` for every other): hold, warn or off. */
	readonly collisions: Readonly<Record<string, 'hold' | 'warn' | 'off'>>;
};
export type SettingKind = keyof KindValues;

/** One setting: its kind, its built-in default, the variable that sets it (where one exists) and who reads it. */
type SettingSpec = {
	readonly kind: SettingKind;
	readonly builtIn: KindValues[SettingKind];
	/** The environment variable that sets it today; none is invented for a setting that had none. */
	readonly env?: string;
	/** The command lines that honour it, each `command --flag` (or just the command, where no flag sets it). */
	readonly usedBy: readonly string[];
	/** What it decides, in one line. */
	readonly about: string;
	/**
	 * The least value that makes sense, where "positive" is not enough: a reconciler pass every
	 * nanosecond, or a heartbeat event every microsecond, only burns the machine (docs/config.md).
	 */
	readonly minimum?: number;
};

/**
 * Every setting the config file may hold: only what a flag or variable already set (issue 23),
 * and the stall threshold's variable, so one threshold reaches every reading command; each later
 * feature adds its own key here. Keys are the file's keys, named with their unit.
 */
export const SETTINGS = {
	stallSeconds: {
		kind: 'count',
		builtIn: DEFAULT_STALL_SECONDS,
		env: 'CONTROLROOM_STALL_SECONDS',
		usedBy: ['board --stall', 'snapshot --stall', 'explain --stall', 'timeline --stall'],
		about: "the agent's silence after which a running task shows as stalled (a task's own threshold wins)",
	},
	endedWindow: {
		kind: 'duration',
		builtIn: 24 * 3_600_000,
		usedBy: ['board --since', 'snapshot --since'],
		about: 'how long ended tasks stay listed under "recently ended"',
	},
	reconcileIntervalSeconds: {
		kind: 'seconds',
		builtIn: 5,
		usedBy: ['reconcile --interval', 'board --reconcile'],
		about: 'time between reconciler passes (the board runs its own; not on a fleet ledger)',
		minimum: 0.05,
	},
	agentNames: {
		kind: 'names',
		builtIn: ['claude', 'codex'],
		env: 'CONTROLROOM_AGENT_NAMES',
		usedBy: ['reconcile --agents', 'board'],
		about: 'process names the reconciler counts as agents, recorded as untracked when nobody registered them',
	},
	bell: {
		kind: 'onOff',
		builtIn: true,
		usedBy: ['board --no-bell'],
		about: 'ring the terminal bell when a new entry comes into Needs you',
	},
	mouse: {
		kind: 'onOff',
		builtIn: true,
		usedBy: ['board --no-mouse', 'demo'],
		about: "the board's mouse: a click selects a row, the wheel scrolls (off: the terminal selects text as usual)",
	},
	keys: {
		kind: 'keys',
		builtIn: {},
		usedBy: ['board', 'demo'],
		about: "the board's keys: a command's name and the keys that replace its own (? help shows the keys in force)",
	},
	colors: {
		kind: 'colors',
		builtIn: {},
		usedBy: ['board', 'demo'],
		about: "the board's colours: a tone (ok, warn, error, muted, info, accent) and its colour",
	},
	syncIntervalSeconds: {
		kind: 'seconds',
		builtIn: 5,
		usedBy: ['sync --interval'],
		about: 'the longest time between sync passes',
		minimum: 0.05,
	},
	unsignedFleetApprovals: {
		kind: 'onOff',
		builtIn: false,
		usedBy: ['sync --accept-unsigned-approvals', 'reconcile --accept-unsigned-approvals'],
		about: "carry out a fleet board's approval of held effects though no person's key signed it (docs/fleet.md); off: refused",
	},
	budgetTokens: {
		kind: 'count',
		builtIn: 40_000_000,
		usedBy: ['run --budget'],
		about: "a wrapped run's token budget; over it the child is stopped (exit 125)",
	},
	slots: {
		kind: 'count',
		builtIn: 2,
		env: 'CONTROLROOM_SLOTS',
		usedBy: ['run --slots'],
		about: 'admission slots per repository: how many workers run there at once',
	},
	heartbeatSeconds: {
		kind: 'seconds',
		builtIn: 15,
		env: 'CONTROLROOM_HEARTBEAT_SECONDS',
		usedBy: ['run --heartbeat'],
		about: 'how often a wrapped run records that its child lives',
		minimum: 0.05,
	},
	runGraceSeconds: {
		kind: 'seconds',
		builtIn: 10,
		usedBy: ['run --grace'],
		about: 'SIGTERM-to-SIGKILL grace of a wrapped run on a forwarded stop or a budget stop',
		minimum: 0.05,
	},
	contractRequire: {
		kind: 'requirements',
		builtIn: [],
		usedBy: ['contract check --require', 'take --require', 'run --require', 'mcp'],
		about: "what a receiver requires of a contract beyond its kind's needs (the production fields, scope)",
	},
	claimTimeLimit: {
		kind: 'duration',
		builtIn: 8 * 3_600_000,
		usedBy: ['take --time-limit', 'pickup', 'mcp'],
		about:
			'how long one holder keeps a claim, progress or not, before the reconciler puts it in Needs you (the lease is silence; this is the whole hold)',
	},
	failedRunLimit: {
		kind: 'count',
		builtIn: 2,
		usedBy: ['send-back', 'review'],
		about:
			'failed runs of one task (a run and the runs started again from it) after which it is not run again but waits in Needs you',
	},
	approvals: {
		kind: 'approvals',
		builtIn: 'terminal',
		usedBy: ['decide', 'effects', 'accept', 'ack', 'send-back', 'review', 'board', 'sync'],
		about:
			'"passkey": every yes must be signed by an enrolled passkey; recorded in the ledger once seen, and only a passkey answer turns it off (docs/passkeys.md)',
	},
	passBackLimit: {
		kind: 'count',
		builtIn: 2,
		usedBy: ['take', 'pass-back', 'send-back', 'pickup', 'mcp'],
		about:
			'passes back a contract may have since a person last handed it over; one more sends it to Needs you and refuses its next take',
	},
	collisions: {
		kind: 'collisions',
		builtIn: {},
		usedBy: ['collision-hook'],
		about:
			'what happens when a task is about to write a file another live task edited and did not commit: hold (a question), warn (Needs you only) or off, by checkout root',
	},
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
/** Each setting's value, typed by its kind. */
export type SettingValues = {readonly [K in SettingKey]: KindValues[(typeof SETTINGS)[K]['kind']]};

/** Every setting's key, in the table's order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The built-in default of a setting. */
export function builtInOf<K extends SettingKey>(key: K): SettingValues[K] {
	return SETTINGS[key].builtIn as SettingValues[K];
}

/** The least value a setting takes (undefined: any value of its kind). */
export function minimumOf(key: SettingKey): number | undefined {
	const spec: SettingSpec = SETTINGS[key];
	return spec.minimum;
}

/** `1 second`, `0.05 seconds`. */
export const secondsText = (seconds: number): string => `${seconds} second${seconds === 1 ? '' : 's'}`;

/** Why a value is below its setting's minimum, or null when it is not. */
export function belowMinimum(key: SettingKey, value: unknown): string | null {
	const minimum = minimumOf(key);
	if (minimum === undefined || typeof value !== 'number' || value >= minimum) return null;
	return `expected at least ${SETTINGS[key].kind === 'seconds' ? secondsText(minimum) : minimum}, got ${value}`;
}

/** The environment variable that sets a setting, where one does. */
export function envOf(key: SettingKey): string | undefined {
	const spec: SettingSpec = SETTINGS[key];
	return spec.env;
}

/** What a value of each kind should look like, for the line that refuses one. */
export const EXPECTED: Readonly<Record<SettingKind, string>> = {
	count: 'a positive whole number',
	seconds: 'a positive number of seconds',
	duration: 'a duration like 90m, 24h or 7d',
	names: 'comma-separated process names',
	onOff: 'true or false',
	keys: 'an object of board commands and their keys, like {"approve": "A"}',
	colors: 'an object of tones and colours, like {"warn": "#ff8800"}',
	requirements: `comma-separated policy values (${POLICY_TOKENS.join(', ')})`,
	approvals: 'terminal or passkey',
	collisions: 'an object of checkout roots (absolute, or "*") and hold, warn or off, like {"*": "hold", "/src/app": "warn"}',
};

/**
 * Reads a value of `kind` from text, as a flag or an environment variable gives it: the value, or
 * null when the text is not one. A names list with no name in it is `undefined`: not set.
 */
export function settingFromText<K extends SettingKind>(kind: K, text: string): KindValues[K] | null | undefined;
export function settingFromText(kind: SettingKind, text: string): KindValues[SettingKind] | null | undefined {
	const number = Number(text);
	const isBlank = text.trim() === '';
	switch (kind) {
		case 'count':
			return !isBlank && Number.isInteger(number) && number > 0 ? number : null;
		case 'seconds':
			return !isBlank && Number.isFinite(number) && number > 0 ? number : null;
		case 'duration':
			return parseDuration(text);
		case 'names': {
			const names = text
				.split(',')
				.map(name => name.trim())
				.filter(Boolean);
			return names.length > 0 ? names : undefined;
		}
		case 'onOff':
			return text === 'true' ? true : text === 'false' ? false : null;
		case 'keys':
		case 'colors':
		case 'collisions':
			// Objects live in the file only: no flag or variable sets them.
			return null;
		case 'approvals':
			return text === 'terminal' || text === 'passkey' ? text : null;
		case 'requirements': {
			const values = text
				.split(',')
				.map(value => value.trim())
				.filter(Boolean);
			return values.every(value => POLICY_TOKENS.includes(value)) ? values : null;
		}
	}
}

// Weeks are left out, and a day shows as 24h: the "24h" and "7d" of the flags' help.
const UNIT_MS: readonly (readonly [unit: string, ms: number, from: number])[] = [
	['d', 86_400_000, 2 * 86_400_000],
	['h', 3_600_000, 3_600_000],
	['m', 60_000, 60_000],
	['s', 1000, 0],
];

/** A value as the config file holds it: a duration as text (`"24h"`), anything else as it is. */
export function settingInFile(kind: SettingKind, value: KindValues[SettingKind]): unknown {
	if (kind !== 'duration' || typeof value !== 'number') return value;
	const [unit, ms] = UNIT_MS.find(([, ms, from]) => value >= from && value % ms === 0) ?? ['s', 1000];
	return `${value / ms}${unit}`;
}
