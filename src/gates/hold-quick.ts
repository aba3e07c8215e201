import {existsSync, realpathSync} from 'node:fs';
import {basename, dirname, isAbsolute, join, resolve} from 'node:path';
import {holdReason, writtenFileOf, type HoldPolicy} from '../core/decisions/hold-policy.ts';

// The hold hook's policy check, and the calls it answers without the ledger (docs/decisions.md,
// "What the hooks cost"). A held run waits for the hook at every tool call, and most calls are
// ordinary: with `--on-budget stop` and no answer carried, such a call's answer is nothing
// whatever the ledger holds, so SQLite is never loaded for it.

/** What the wrapper gave the hook on its command line (src/producers/wrapper/hold-settings.ts). */
export type HoldHookConfig = {
	readonly policy: HoldPolicy;
	/** The run's folder: writes outside it are held. */
	readonly cwd: string;
	readonly onBudget: 'stop' | 'ask';
};

/** The variable a resumed run carries its answer in (src/producers/wrapper/held.ts, CARRIED_ANSWER_ENV). */
const CARRIED_ANSWER_ENV = 'CONTROLROOM_CARRIED_ANSWER';

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** The real path a write would land on: the nearest folder that exists, resolved, and the rest. */
export function realTarget(path: string, cwd: string): string {
	let head = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
	const rest: string[] = [];
	while (!existsSync(head) && dirname(head) !== head) {
		rest.unshift(basename(head));
		head = dirname(head);
	}
	try {
		return join(realpathSync(head), ...rest);
	} catch {
		return join(head, ...rest);
	}
}

/** The run's folder, resolved through links as a write's target is. */
export function realFolder(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

/** Why the run's policy holds this call, or null; paths resolved through symlinks first. */
export function policyReasonOf(config: HoldHookConfig, toolName: string, toolInput: Record<string, unknown>): string | null {
	const cwd = realFolder(config.cwd);
	const written = writtenFileOf(toolName, toolInput);
	return holdReason(config.policy, {toolName, toolInput, cwd, filePath: written === null ? null : realTarget(written, cwd)});
}

/** Whether Claude runs the hook headless (`claude -p`), where `defer` is honoured. */
export function isHeadlessHook(env: NodeJS.ProcessEnv): boolean {
	return env['CLAUDE_CODE_ENTRYPOINT'] === 'sdk-cli' || env['CLAUDE_CODE_SESSION_ATTENDED'] === '0';
}

/**
 * True when the hook's answer is nothing whatever the ledger holds (src/core/decisions/hold-action.ts):
 * no budget to pause on, no answer carried, and a call the policy does not hold (or any call
 * interactively, where held calls are the dialog's). A question waiting for this very call can only
 * exist for a call the run's policy, fixed when it started, held. False for a payload that is not
 * JSON: the full hook says why.
 */
export function isAnsweredWithoutLedger(config: HoldHookConfig, payloadText: string, env: NodeJS.ProcessEnv): boolean {
	if (config.onBudget === 'ask' || env[CARRIED_ANSWER_ENV]) return false;
	let payload: unknown;
	try {
		payload = JSON.parse(payloadText);
	} catch {
		return false;
	}
	if (!env['CONTROLROOM_TASK_ID']?.trim() || !isRecord(payload) || payload['hook_event_name'] !== 'PreToolUse') return true;
	if (!isHeadlessHook(env)) return true;
	const toolName = typeof payload['tool_name'] === 'string' ? payload['tool_name'] : '';
	const toolInput = isRecord(payload['tool_input']) ? payload['tool_input'] : {};
	return policyReasonOf(config, toolName, toolInput) === null;
}
