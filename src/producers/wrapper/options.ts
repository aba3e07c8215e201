import type {PriceTable} from '../../core/price-table.ts';
import type {Writable} from 'node:stream';
import {builtInOf} from '../../core/settings.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import type {AgentKind} from '../agent-kind.ts';
import type {HoldOptions} from './hold-options.ts';
import type {RunAsUser} from './run-as.ts';
import type {WorktreePlan} from '../worktree.ts';

// The built-in defaults live with the settings that override them (src/core/settings.ts, docs/config.md).
/** Default token budget of a wrapped run. */
export const DEFAULT_BUDGET = builtInOf('budgetTokens');
/** Default heartbeat interval while the child lives. */
export const DEFAULT_HEARTBEAT_MS = builtInOf('heartbeatSeconds') * 1000;
/** Time the child gets after a forwarded SIGTERM/SIGHUP/SIGQUIT (or a budget stop) before SIGKILL. */
export const DEFAULT_WRAPPER_GRACE_MS = builtInOf('runGraceSeconds') * 1000;

export type WrapperOptions = {
	readonly ledger: Ledger;
	readonly command: string;
	readonly args: readonly string[];
	readonly title: string | null;
	readonly steps: number | null;
	readonly budget: number;
	/**
	 * What `budget` (and `budgetUsd`) count when the run resumed a Claude session: `run` (default)
	 * what this run's tree spends, `session` the session's earlier runs too (docs/tree-and-cost.md).
	 */
	readonly budgetCovers?: 'run' | 'session';
	/** A money budget over the tree (`--budget-usd`, in the price table's currency); null: none. */
	readonly budgetUsd?: number | null;
	/** Prices for the tree's cost (docs/tree-and-cost.md); the shipped table when absent. */
	readonly prices?: PriceTable;
	readonly agent: AgentKind;
	readonly role: 'worker' | 'reviewer' | 'tripwire';
	readonly cwd: string;
	readonly wait: boolean;
	readonly slots: number;
	readonly home: string;
	readonly heartbeatMs: number;
	readonly graceMs: number;
	/** Child output goes here instead of the terminal. */
	readonly logFile: string | null;
	/** The wrapper's own one-line notices (never the child's output). */
	readonly notice: (line: string) => void;
	/** The task id to record (a caller that must know it before the run, like a review); else a new one. */
	readonly taskId?: string | null;
	/** The task this one works for (a reviewer's reviewed task). */
	readonly parentId?: string | null;
	/** The task this run does again (a fix round, a send-back). */
	readonly rerunOf?: string | null;
	/** The command as given, before a contract was put into it (recorded; default: command and args). */
	readonly argv?: readonly string[] | null;
	/** The contract file (absolute), recorded as the task's brief. */
	readonly contract?: string | null;
	/** The contract's text and sha256 as checked and put in, recorded so the worker cannot change it after. */
	readonly contractSnapshot?: {readonly text: string; readonly digest: string} | null;
	/** The contract's `trace` (docs/otel.md): the trace the run joins and the span that parents its own. */
	readonly contractTrace?: {readonly traceId: string; readonly parentSpanId: string | null} | null;
	/** Set by the wrapper once the task id is known: the run's trace, passed to the agent in TRACEPARENT. */
	readonly trace?: {readonly traceId: string; readonly parentSpanId: string | null} | null;
	/** `run --otel URL`: a Claude agent's own telemetry goes to this receiver (docs/otel.md). */
	readonly otelEndpoint?: string | null;
	/** The brief file (absolute) of a re-run; the child gets it in CONTROLROOM_BRIEF. */
	readonly brief?: string | null;
	/** More environment for the child (CONTROLROOM_REVIEW_PACKET, CONTROLROOM_FIXES, ...). */
	readonly env?: Readonly<Record<string, string>>;
	/** A file the child reads as its stdin (a reviewer's packet); default: the terminal's. */
	readonly stdinFile?: string | null;
	/** Where the child's stdout goes instead of the terminal (a reviewer's answer is read from it). */
	readonly stdout?: Writable | null;
	/** Where the child's stderr goes instead of the terminal. */
	readonly stderr?: Writable | null;
	/** The strong mode: the child runs as this OS user, which cannot write the ledger (docs/security.md). */
	readonly runAs?: RunAsUser | null;
	/** A headless Claude run whose held calls wait for a person and resume (docs/headless-holds.md). */
	readonly hold?: HoldOptions | null;
	/** `run --worktree`: the run's own worktree, made once admitted; the child runs in it (docs/wrapper.md). */
	readonly worktree?: WorktreePlan | null;
};

/** The task's title: the one given, or the start of the command line. */
export function titleOf(options: Pick<WrapperOptions, 'title' | 'command' | 'args'>): string {
	return options.title ?? commandLineOf(options).slice(0, 80);
}

/** The command line as one string, as recorded on the row. */
export function commandLineOf(options: Pick<WrapperOptions, 'command' | 'args'>): string {
	return [options.command, ...options.args].join(' ');
}
